import AppGroupContainer
import AppGroupFoundation
import Foundation
import ProbeSupport
import SharedDefaults
import ShareInbox

// A target process for the lifecycle tests. It changes no line of its code for the
// device's lifecycle: the device's messages reach it through the package it links
// (the listener CAppGroupSys starts before main), as notifications on
// NotificationCenter.default.
//
//   observe                       prints "notified <name>" for each lifecycle notification
//   observe-stuck                 as observe, but its didEnterBackground observer never returns
//   coordinated-write --file F    prints "inside" from inside a coordinated write of F, sleeps there
//   defaults-idle --suite S       saves a value, prints "saved", then sleeps between operations
//   lock --kind posix|ofd|flock --file F   takes a write lock on F, prints "locked", sleeps
//   expiring --seconds N          performExpiringActivity whose work lasts N s; prints
//                                 "began", then "expired" (handler) or "finished"
//   defaults-storm --suite S --count N [--pause-us U]   saves "k<i>" = i, prints "ack <i>" after
//                                 each returned, pauses U microseconds between saves
//   inbox-storm --group G --count N [--pause-us U]      enqueues items titled "t<i>", prints "ack <i>"
//   present --file F              registers an NSFilePresenter of F that prints "relinquish" and
//                                 "reacquire" as a writer in another process asks it, then sleeps
//   save --file F                 a coordinated write of "saved" into F; prints "written"
//   allocate --megabytes M        touches M MB of anonymous memory (1 MB per 10 ms), prints "allocated", sleeps
//   family [--orphan yes]         ignores SIGTERM, starts two grandchildren (this executable's `grandchild`,
//                                 one in this process's group, one in a session of its own), prints
//                                 "grandchild <pid>" for each, then sleeps, or with --orphan exits
//   grandchild [--detach yes]     ignores SIGTERM; with --detach starts a session of its own; sleeps
//   hello                         prints "ready" and exits
//   protected-data                prints "prewarm <ActivePrewarm>", then "available <true|false> at launch"
//                                 (isProtectedDataAvailable, from the device's state) and
//                                 "available <...> after <name>" in each protected-data observer; sleeps
//   identity --suite S --wait-for-unlock before-reading|after-reading
//                                 the "new user" bug and its fix: reads "userID" from the suite (after
//                                 protectedDataDidBecomeAvailable with before-reading, at once with
//                                 after-reading), takes a fresh ID when none, prints "read <id|none>",
//                                 then (after the notification) saves the ID it holds; prints "saved <id>"
//   device-request --kind K --payload P [--count N]   N requests at once on the device channel;
//                                 prints one "answer ..." or "refused ..." line each, sorted, then "done"
// Every command first prints "ready" once its observers are in place.

let names = [
    "UIApplicationWillResignActiveNotification", "UIApplicationDidEnterBackgroundNotification",
    "UIApplicationWillEnterForegroundNotification", "UIApplicationDidBecomeActiveNotification",
    "UIApplicationWillTerminateNotification",
    "NSExtensionHostWillResignActiveNotification", "NSExtensionHostDidEnterBackgroundNotification",
    "NSExtensionHostWillEnterForegroundNotification", "NSExtensionHostDidBecomeActiveNotification",
    "UIApplicationProtectedDataWillBecomeUnavailable", "UIApplicationProtectedDataDidBecomeAvailable",
]
for name in names {
    _ = NotificationCenter.default.addObserver(forName: Notification.Name(name), object: nil, queue: nil) { note in
        say("notified \(note.name.rawValue)")
    }
}

/// What the target itself reads of the device's state, inside its sandbox.
func available() -> String {
    do { return "available \(try DeviceStateStore.current().read().isProtectedDataAvailable())" } catch { return "unreadable \(error)" }
}

func sleepForever() -> Never {
    while true { sleep(1000) }
}

let command = CommandLine.arguments.dropFirst().first ?? ""
do {
    switch command {
    case "observe":
        say("ready")
        sleepForever()

    case "identity":
        let defaults = try SharedDefaults(requiringSuiteName: option("suite"))
        let unlocked = DispatchSemaphore(value: 0)
        _ = NotificationCenter.default.addObserver(forName: Notification.Name("UIApplicationProtectedDataDidBecomeAvailable"),
                                                   object: nil, queue: nil) { _ in unlocked.signal() }
        let fixed = option("wait-for-unlock") == "before-reading"
        let waitIfProtected = {
            // The fix: no shared data is read or written before protected data is available.
            if (try? DeviceStateStore.current().read().isProtectedDataAvailable()) != true { unlocked.wait() }
        }
        say("ready")
        if fixed { waitIfProtected() }
        let found = defaults.string(forKey: "userID")
        say("read \(found ?? "none")")
        let identity = found ?? "new-\(getpid())"
        if !fixed { waitIfProtected() }
        try defaults.save(identity, forKey: "userID")
        say("saved \(identity)")
        sleepForever()

    case "protected-data":
        for name in ["UIApplicationProtectedDataWillBecomeUnavailable", "UIApplicationProtectedDataDidBecomeAvailable"] {
            _ = NotificationCenter.default.addObserver(forName: Notification.Name(name), object: nil, queue: nil) { _ in
                say(available() + " after " + name)
            }
        }
        say("prewarm \(ProcessInfo.processInfo.environment["ActivePrewarm"] ?? "unset")")
        say(available() + " at launch")
        say("ready")
        sleepForever()

    case "observe-stuck":
        // An observer of didEnterBackground that never returns: iOS's watchdog would kill it.
        _ = NotificationCenter.default.addObserver(forName: Notification.Name("UIApplicationDidEnterBackgroundNotification"),
                                                   object: nil, queue: nil) { _ in sleepForever() }
        say("ready")
        sleepForever()

    case "coordinated-write":
        let url = URL(fileURLWithPath: option("file"))
        say("ready")
        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: url, options: [], error: &error) { url in
            try? Data("draft".utf8).write(to: url)
            say("inside")
            sleepForever()
        }
        fail("coordination failed: \(String(describing: error))")

    case "present":
        let presenter = PrintingPresenter(URL(fileURLWithPath: option("file")))
        NSFileCoordinator.addFilePresenter(presenter)
        say("ready")
        sleepForever()

    case "save":
        say("ready")
        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: URL(fileURLWithPath: option("file")), options: [], error: &error) { url in
            try? Data("saved".utf8).write(to: url)
        }
        if let error { fail("coordination failed: \(error)") }
        say("written")

    case "defaults-idle":
        let defaults = try SharedDefaults(requiringSuiteName: option("suite"))
        try defaults.save("value", forKey: "idle")
        say("ready")
        say("saved")
        sleepForever()

    case "lock":
        let path = option("file")
        let fd = open(path, O_RDWR | O_CREAT, 0o644)
        guard fd >= 0 else { fail("open \(path): \(errno)") }
        switch option("kind") {
        case "flock":
            guard flock(fd, LOCK_EX) == 0 else { fail("flock: \(errno)") }
        case "posix", "ofd":
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            let ofdSetLock: Int32 = 37  // F_OFD_SETLK, hidden behind _GNU_SOURCE
            guard fcntl(fd, option("kind") == "ofd" ? ofdSetLock : F_SETLK, &lock) == 0 else { fail("fcntl: \(errno)") }
        default:
            fail("--kind posix|ofd|flock")
        }
        say("ready")
        say("locked")
        sleepForever()

    case "expiring":
        let seconds = intOption("seconds")
        say("ready")
        ProcessInfo.processInfo.performExpiringActivity(withReason: "save the draft") { expired in
            if expired {
                say("expired")
                return
            }
            say("began")
            for _ in 0..<(seconds * 10) { usleep(100_000) }
            say("finished")
        }
        sleepForever()

    case "defaults-storm":
        let defaults = try SharedDefaults(requiringSuiteName: option("suite"))
        say("ready")
        for i in 1...intOption("count") {
            try defaults.save(i, forKey: "k\(i)")
            say("ack \(i)")
            usleep(UInt32(intOption("pause-us", 0)))
        }
        say("done")
        sleepForever()

    case "inbox-storm":
        let inbox = try ShareInbox(groupIdentifier: option("group"), resolver: try ContainerResolver.current())
        say("ready")
        for i in 1...intOption("count") {
            try inbox.enqueue(SharedItem(url: URL(string: "https://example.com/t\(i)"), title: "t\(i)"))
            say("ack \(i)")
            usleep(UInt32(intOption("pause-us", 0)))
        }
        say("done")
        sleepForever()

    case "family":
        signal(SIGTERM, SIG_IGN)
        let grandchildren = ["no", "yes"].map { detach in spawnSelf(["grandchild", "--detach", detach]) }
        for pid in grandchildren { say("grandchild \(pid)") }
        say("ready")
        if optionalOption("orphan") == "yes" { exit(0) }
        sleepForever()

    case "grandchild":
        signal(SIGTERM, SIG_IGN)
        if option("detach") == "yes" { _ = setsid() }
        sleepForever()

    case "hello":
        say("ready")

    case "allocate":
        let megabytes = intOption("megabytes")
        var blocks: [UnsafeMutableRawPointer] = []
        say("ready")
        for _ in 0..<megabytes {
            let block = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 4096)
            memset(block, 1, 1 << 20)
            blocks.append(block)
            // As an extension's footprint grows over a load, not in one burst: the
            // sampling watchdog (every 50 ms) sees the limit passed long before the end.
            usleep(10_000)
        }
        say("allocated")
        withExtendedLifetime(blocks) { sleepForever() }

    case "device-request":
        let kind = option("kind"), payload = option("payload")
        let count = intOption("count", 1)
        let lines = Answers()
        let group = DispatchGroup()
        say("ready")
        for _ in 0..<count {
            group.enter()
            Thread {
                let line: String
                do { line = "answer " + String(try DeviceRequestChannel.request(kind, payload, timeout: 300).prefix(80)) } catch { line = "refused \(error)" }
                lines.append(line)
                group.leave()
            }.start()
        }
        group.wait()
        for line in lines.all.sorted() { say(line) }
        say("done")

    default:
        fail("unknown command \(command)")
    }
} catch {
    fail("\(error)")
}

/// Starts this executable again with `arguments` (posix_spawn), without the
/// lifecycle channel (the device's word is for this process only); returns its pid.
func spawnSelf(_ arguments: [String]) -> pid_t {
    let path = CommandLine.arguments[0]
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    let env: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment
        .filter { $0.key != "APPGROUP_LIFECYCLE_FD" }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + env).forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addclose(&actions, 3)
    var pid: pid_t = 0
    let status = posix_spawn(&pid, path, &actions, nil, argv, env)
    guard status == 0 else { fail("posix_spawn \(path): \(status)") }
    return pid
}

/// The answers of the `device-request` command, from its threads.
final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}

/// A presenter of the `present` command: prints the requests of writers elsewhere.
final class PrintingPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()

    init(_ url: URL) { presentedItemURL = url }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        say("relinquish")
        writer { say("reacquire") }
    }
}
