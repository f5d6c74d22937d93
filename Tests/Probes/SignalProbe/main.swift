import Foundation
import AppGroupContainer
import notify
import ProbeSupport

// The child process of the signal tests: posts and observes names on a device's
// signal table (the primitive), through the Darwin center and notify(3), and runs
// the two public shapes (DarwinWrapper.swift, CaptureStore.swift) as an app or an
// extension would. Output lines are acknowledgements the tests wait for.
//
//   post --root R --name N [--count C]           C posts of N on R's table
//   observe --root R --name N [--seconds S]      "ready", then "delivered <i>" per call
//   observe-many --root R --prefix P --count C [--seconds S]
//                                                observes P.0 ... P.<C-1> and P.mark: "ready"; at
//                                                each notice of P.mark "marked <g>"; once every name
//                                                was heard after mark g, "heard all <g>" (the soak)
//   wrapper --name N [--seconds S]               the Darwin wrapper in an app: "woke <name>"
//   wrapper-post --name N                        the wrapper's post, from an extension
//   capture-app --group G [--seconds S]          the capture store's app: "reloaded <n> <last>"
//   capture-extension --group G --text T         the capture store's extension: saves, posts, "saved"
//   notify-app --name N [--seconds S]            notify_register_dispatch on the main queue: "token <t>"
//   notify-post --name N                         notify_post: "status <s>"
//   note-app --file F [--seconds S]              reads F, "note <note>", "ready"; on a notice "read <note>", exit 0
//   note-extension --file F --text T --post-first yes|no
//                                                saves T into F (coordinated) and posts, or posts first: "saved"
// Darwin-center commands use the root in APP_GROUP_CONTAINERS_ROOT, as a launched target does.

#if canImport(Darwin)
fail("SignalProbe runs on Linux only: on Darwin its commands would reach Apple's real group containers and notify center")
#else
let arguments = CommandLine.arguments
guard arguments.count > 1 else { fail("usage: SignalProbe <command> [--option value]...") }

/// Runs the main queue for `seconds`, then exits 0.
func runMain(seconds: Double) -> Never {
    DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { exit(0) }
    RunLoop.main.run(until: Date().addingTimeInterval(seconds + 1))
    exit(0)
}

switch arguments[1] {
case "post":
    let table: SignalTable
    do { table = try SignalTable.forDevice(root: ContainerRoot(path: option("root"))) } catch { fail("\(error)") }
    let name = option("name")
    for _ in 0..<intOption("count", 1) { table.post(name) }
    say("posted")
case "observe":
    let table: SignalTable
    do { table = try SignalTable.forDevice(root: ContainerRoot(path: option("root"))) } catch { fail("\(error)") }
    let count = Locked(0)
    let observation = table.observe(option("name")) {
        let n = count.withLock { value -> Int in
            value += 1
            return value
        }
        say("delivered \(n)")
    }
    say("ready")
    Thread.sleep(forTimeInterval: Double(option("seconds", "60")) ?? 60)
    observation.cancel()
case "observe-many":
    let table: SignalTable
    do { table = try SignalTable.forDevice(root: ContainerRoot(path: option("root"))) } catch { fail("\(error)") }
    let prefix = option("prefix"), count = intOption("count")
    // Per name, the notices so far; at a mark, a copy to compare with.
    let heard = Locked((counts: [Int](repeating: 0, count: count), atMark: [Int](repeating: 0, count: count), mark: 0, told: 0))
    let observations = (0..<count).map { i in
        table.observe("\(prefix).\(i)") {
            let news = heard.withLock { state -> Int? in
                state.counts[i] += 1
                guard state.told < state.mark, zip(state.counts, state.atMark).allSatisfy({ $0 > $1 }) else { return nil }
                state.told = state.mark
                return state.mark
            }
            if let news { say("heard all \(news)") }
        }
    } + [table.observe("\(prefix).mark") {
        let mark = heard.withLock { state -> Int in
            state.mark += 1
            state.atMark = state.counts
            return state.mark
        }
        say("marked \(mark)")
    }]
    say("ready")
    Thread.sleep(forTimeInterval: Double(option("seconds", "600")) ?? 600)
    for observation in observations { observation.cancel() }
case "wrapper":
    let observer = DarwinNotificationObserver()
    let name = option("name")
    observer.startObserving(name) { say("woke \(name)") }
    say("ready")
    withExtendedLifetime(observer) { runMain(seconds: Double(option("seconds", "60")) ?? 60) }
case "wrapper-post":
    DarwinNotificationObserver.post(option("name"))
    say("posted")
case "capture-app":
    guard let store = CaptureStore(group: option("group")) else { fail("no container for \(option("group"))") }
    let watcher = CaptureStore.Watcher(store: store) { captures in say("reloaded \(captures.count) \(captures.last ?? "")") }
    say("ready")
    withExtendedLifetime(watcher) { runMain(seconds: Double(option("seconds", "60")) ?? 60) }
case "capture-extension":
    guard let store = CaptureStore(group: option("group")) else { fail("no container for \(option("group"))") }
    do { try store.save(option("text")) } catch { fail("\(error)") }
    say("saved")
case "notify-app":
    var token: Int32 = 0
    let status = notify_register_dispatch(option("name"), &token, DispatchQueue.main) { token in say("token \(token)") }
    guard status == NOTIFY_STATUS_OK else { fail("notify_register_dispatch: \(status)") }
    say("ready \(token)")
    runMain(seconds: Double(option("seconds", "60")) ?? 60)
case "notify-post":
    say("status \(notify_post(option("name")))")
case "note-app":
    NoteCommands.observe()
case "note-extension":
    NoteCommands.save()
default:
    fail("unknown command \(arguments[1])")
}
#endif
