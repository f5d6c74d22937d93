import AppGroupContainer
import AppGroupSystem
import Foundation
import ProbeSupport
import SharedDefaults
import SharedKeychain
import ShareInbox
import Security

// A helper process for the reliability tests. Identity and container root come from the
// environment (Entitlements.environment, APP_GROUP_CONTAINERS_ROOT). Each command
// prints one line per call that RETURNED, so a test that SIGKILLs it knows exactly
// which writes it may demand afterwards.
//
//   defaults-writer --suite S --id W --count N
//        sets "w<W>" = ["n": i, "check": "<W>-<i>"] and increments "lane" for i in 1...N;
//        prints "ready", then "ack <i>" after each pair of calls returned
//   inbox-writer --group G --id W --count N --scratch DIR
//        enqueues items titled "<W>-<i>" (every third with an attachment whose bytes
//        are derived from the title); prints "ready", then "ack <i>"
//   inbox-stop --group G --title T [--attachment FILE] [--at N]
//        enqueues one item titled T (with FILE attached when given). Without --at:
//        prints "call <i> <function> <path>" for each system call, then "ack <number>".
//        With --at N: prints "stopped <N> <function> <path>" just before the N-th call
//        and sleeps until killed (debug builds only: the calls are watched through
//        the system-call seam's hook)
//   keychain-writer --group G --id W --count N
//        saves generic passwords (service "crash", account "w<W>-<i>", secret
//        "secret-<W>-<i>", access group G); prints "ready", then "ack <i>"
//   observer-writer --suite S --id W
//        observes "lane" in suite S and, in each change handler, increments "obs<W>"
//        with update (a write from inside an observer); prints "ready", then
//        "ack <n>" after each update returned, n being the value it stored
//   hold --file F       takes F's write coordination, prints "locked", sleeps until killed
//   populate --group G  under the umask the process was given (set with --umask OCTAL),
//        touches every kind of file the package makes: prints "done"
//   outsider --group G  tries the group through every public API; prints "refused <api>"
//        or "ALLOWED <api>" for each, exit 0 only when all were refused
//   disk-full --group G --scratch DIR
//        on a root that is a small file system (the test mounts a tmpfs): fills it with
//        suite saves, then enqueues, then keychain saves, until each fails; prints
//        "ok ..." figures, or "FAIL ..." for a fault not handled (then exits 2)
//   inbox-enqueue, inbox-drain, inbox-fill: see InboxCommands.swift
//   soak --group G --id W --seconds S
//        mixes sets, updates, enqueues and drains for S seconds; prints "set <slot> <v>",
//        "inc", "enq <title>", "got <title>", "rss-start <kB>", "rss-end <kB>", "done"

func residentKilobytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// The bytes of the attachment of item `title`: recognisable, so a drainer can
/// tell a complete attachment from a torn one.
func attachmentBytes(_ title: String) -> Data {
    Data(String(repeating: title + ";", count: 64).utf8)
}

/// Numbers the system calls inbox-stop watches (they may come from any thread).
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.withLock { count += 1; return count } }
}

func resolver() -> ContainerResolver {
    do { return try ContainerResolver.current() } catch { fail("\(error)") }
}

let command = CommandLine.arguments.dropFirst().first ?? ""
do {
    switch command {
    case "defaults-writer":
        let defaults = try SharedDefaults(requiringSuiteName: option("suite"))
        let id = option("id")
        say("ready")
        for i in 1...intOption("count") {
            try defaults.save(["n": i, "check": "\(id)-\(i)"], forKey: "w" + id)
            try defaults.update(Int.self, forKey: "lane") { ($0 ?? 0) + 1 }
            say("ack \(i)")
        }
        say("done")

    case "inbox-writer":
        let inbox = try ShareInbox(groupIdentifier: option("group"), resolver: resolver())
        let id = option("id")
        let scratch = URL(fileURLWithPath: option("scratch"), isDirectory: true)
        say("ready")
        for i in 1...intOption("count") {
            let title = "\(id)-\(i)"
            var attachments: [SharedItem.Attachment] = []
            if i % 3 == 0 {
                let source = scratch.appendingPathComponent("w\(id)-\(i).txt")
                try attachmentBytes(title).write(to: source)
                attachments.append(.init(fileURL: source, name: "clip.txt"))
            }
            try inbox.enqueue(SharedItem(url: URL(string: "https://example.com/\(title)"), title: title, attachments: attachments))
            say("ack \(i)")
        }
        say("done")

    case "inbox-stop":
        #if DEBUG
        let inbox = try ShareInbox(groupIdentifier: option("group"), resolver: resolver())
        let stopAt = optionalOption("at").flatMap(Int.init)
        let attachments = optionalOption("attachment").map { [SharedItem.Attachment(fileURL: URL(fileURLWithPath: $0), name: "clip.txt")] } ?? []
        let count = CallCounter()
        let number = try SystemCallObserver.run({ call, path in
            let i = count.next()
            guard let stopAt else { return say("call \(i) \(call) \(path)") }
            if i == stopAt {
                say("stopped \(i) \(call) \(path)")
                while true { sleep(60) }
            }
        }) {
            try inbox.enqueue(SharedItem(title: option("title"), attachments: attachments))
        }
        say("ack \(number)")
        #else
        fail("inbox-stop needs a debug build (the system-call hook)")
        #endif

    case "inbox-drainer":
        // Drains until the file --done exists and a drain finds nothing; prints
        // "drain" at each drain's start and "got <number> <title>" per item. Every
        // 7th item's handler drains again inside (a nested drain: it never waits).
        Diagnostics.handler = { say("warning " + $0.replacingOccurrences(of: "\n", with: " ")) }
        let inbox = try ShareInbox(groupIdentifier: option("group"), resolver: resolver())
        let done = option("done")
        var handled = 0
        while true {
            say("drain")
            let n = try inbox.drain { item in
                say("got \(item.sequenceNumber) \(item.title ?? "?")")
                handled += 1
                if handled % 7 == 0 {
                    say("nested")
                    try inbox.drain { say("got \($0.sequenceNumber) \($0.title ?? "?")") }
                    say("drain")
                }
            }
            if n == 0 && FileManager.default.fileExists(atPath: done) { break }
            if n == 0 { usleep(10_000) }
        }
        say("done")

    case "inbox-drain-stop":
        // One drain of at most one item, stopped (to be SIGKILLed) just before its
        // system call number --at; without --at, every call is printed.
        #if DEBUG
        let inbox = try ShareInbox(groupIdentifier: option("group"), resolver: resolver())
        let stopAt = optionalOption("at").flatMap(Int.init)
        let count = CallCounter()
        // Calls are counted from the first one on the journal: what comes before
        // (putting back the claims of earlier killed drains) varies from run to run.
        let counting = Locked(false)
        let drained = try SystemCallObserver.run({ call, path in
            guard counting.withLock({ $0 = $0 || path.contains("/Journal/"); return $0 }) else { return }
            let i = count.next()
            guard let stopAt else { return say("call \(i) \(call) \(path)") }
            if i == stopAt {
                say("stopped \(i) \(call) \(path)")
                while true { sleep(60) }
            }
        }) {
            try inbox.drain(maximumCount: 1) { item in say("handled \(item.title ?? "?")") }
        }
        say("drained \(drained)")
        #else
        fail("inbox-drain-stop needs a debug build (the system-call hook)")
        #endif

    case "keychain-writer":
        let keychain = try Keychain.fromEnvironment()
        let group = option("group")
        let id = option("id")
        say("ready")
        for i in 1...intOption("count") {
            try keychain.save(Data("secret-\(id)-\(i)".utf8), for: GenericPassword(service: "crash", account: "w\(id)-\(i)", accessGroup: group))
            say("ack \(i)")
        }
        say("done")

    case "observer-writer":
        let defaults = try SharedDefaults(requiringSuiteName: option("suite"))
        let key = "obs" + option("id")
        let token = try defaults.addObserver(forKey: "lane") { _ in
            do {
                if let n = try defaults.update(Int.self, forKey: key, { ($0 ?? 0) + 1 }) { say("ack \(n)") }
            } catch {
                fail("observer's update: \(error)")
            }
        }
        say("ready")
        withExtendedLifetime(token) { while true { sleep(60) } }

    case "hold":
        try FileCoordinator().coordinate(writingItemAt: URL(fileURLWithPath: option("file"))) { _ in
            say("locked")
            while true { sleep(60) }
        }

    case "populate":
        umask(mode_t(option("umask", "0"), radix: 8) ?? 0)
        let group = option("group")
        let resolver = resolver()
        _ = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: group)
        let defaults = try SharedDefaults(requiringSuiteName: group, resolver: resolver)
        try defaults.save("value", forKey: "key")
        let privateSuite = try SharedDefaults(requiringSuiteName: "private", resolver: resolver)
        try privateSuite.save(1, forKey: "key")
        let inbox = try ShareInbox(groupIdentifier: group, resolver: resolver)
        let scratch = URL(fileURLWithPath: option("scratch"), isDirectory: true)
        let source = scratch.appendingPathComponent("attachment.txt")
        try Data("attachment".utf8).write(to: source)
        try inbox.enqueue(SharedItem(title: "plain"))
        try inbox.enqueue(SharedItem(title: "with file", attachments: [.init(fileURL: source)]))
        try inbox.drain(maximumCount: 1) { _ in }
        let keychain = try Keychain.fromEnvironment()
        try keychain.save(Data("secret".utf8), for: GenericPassword(service: "s", account: "a", accessGroup: group))
        let container = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: group)
        try FileCoordinator().coordinate(writingItemAt: container.appendingPathComponent("Library/Caches/file")) { url in
            try AtomicFile.write(Data("x".utf8), to: url, below: resolver.containerRoot)
        }
        say("done")

    case "outsider":
        let group = option("group")
        let resolver = resolver()
        var allowed: [String] = []
        func check(_ api: String, _ refused: Bool) {
            say((refused ? "refused " : "ALLOWED ") + api)
            if !refused { allowed.append(api) }
        }
        // As on iOS, a suite private to the outsider: not the group's.
        check("SharedDefaults(suiteName:)", SharedDefaults(suiteName: group).map { $0.isPrivateFallback && $0.groupIdentifier == nil } ?? true)
        check("SharedDefaults(requiringSuiteName:)", (try? SharedDefaults(requiringSuiteName: group)) == nil)
        check("ContainerResolver.containerURL", resolver.containerURL(forSecurityApplicationGroupIdentifier: group) == nil)
        check("ContainerResolver.requireContainerURL", (try? resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: group)) == nil)
        #if !canImport(Darwin) // there the method is Apple's own, on the real group containers: not asked
        check("FileManager.containerURL", FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) == nil)
        #endif
        check("ShareInbox(groupIdentifier:)", (try? ShareInbox(groupIdentifier: group, resolver: resolver)) == nil)
        let keychain = try Keychain.fromEnvironment()
        let key = GenericPassword(service: "s", account: "a", accessGroup: group)
        check("Keychain.read(app group)", (try? keychain.read(key)) == nil)
        check("Keychain.save(app group)", (try? keychain.save(Data("stolen".utf8), for: key)) == nil)
        check("Keychain.delete(app group)", (try? keychain.delete(key)) == nil)
        check("SecItem add(app group)", (try? keychain.add([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "t",
                                                            kSecAttrAccount as String: "b", kSecAttrAccessGroup as String: group,
                                                            kSecValueData as String: Data("x".utf8)])) == nil)
        if !allowed.isEmpty { fail("allowed: \(allowed.joined(separator: ", "))", code: 2) }
        say("done")

    case "inbox-enqueue":
        try inboxEnqueue()

    case "inbox-drain":
        try inboxDrain()

    case "inbox-fill":
        try inboxFill()

    case "disk-full":
        try diskFull(group: option("group"), scratch: URL(fileURLWithPath: option("scratch"), isDirectory: true))

    case "soak":
        try soak(group: option("group"), id: option("id"), seconds: Double(intOption("seconds")))

    default:
        fail("unknown command \(command.isEmpty ? "(none)" : command); see the comment at the top of main.swift", code: 64)
    }
} catch {
    fail("\(error)")
}

/// The soak worker: a random mix of the four operations until `seconds` pass.
func soak(group: String, id: String, seconds: Double) throws {
    let resolver = resolver()
    let defaults = try SharedDefaults(requiringSuiteName: group, resolver: resolver)
    let inbox = try ShareInbox(groupIdentifier: group, resolver: resolver)
    var generator = SystemRandomNumberGenerator()
    let start = Date()
    let warmUp = min(5, seconds / 10)
    var sampled = false
    var counter = 0
    var enqueued = 0
    while Date().timeIntervalSince(start) < seconds {
        if !sampled && Date().timeIntervalSince(start) >= warmUp {
            say("rss-start \(residentKilobytes())")
            sampled = true
        }
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<3:
            // Sets: 64 slots per worker, each overwritten with an increasing value.
            counter += 1
            let slot = counter % 64
            try defaults.save(counter, forKey: "s\(id).\(slot)")
            say("set \(slot) \(counter)")
        case 3..<5:
            try defaults.update(Int.self, forKey: "shared") { ($0 ?? 0) + 1 }
            say("inc")
        case 5..<8:
            enqueued += 1
            let title = "\(id)-\(enqueued)"
            try inbox.enqueue(SharedItem(title: title))
            say("enq \(title)")
        default:
            try inbox.drain(maximumCount: 16) { item in say("got \(item.title ?? "?")") }
        }
    }
    if !sampled { say("rss-start \(residentKilobytes())") }
    say("rss-end \(residentKilobytes())")
    say("done")
}

/// True when `error` is, or wraps, a system call that failed with ENOSPC.
func isDiskFull(_ error: Error) -> Bool {
    let text = "\(error)"
    return text.contains("errno \(ENOSPC)") && text.contains("disk is full")
}

/// Temporary or staging leftovers in `directory` (recursively).
func leftovers(_ directory: URL) -> [String] {
    let names = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
    return names.filter { $0.split(separator: "/").contains { AtomicFile.isTemporaryName(String($0)) } || ($0.hasPrefix("Staging/") ) }
}

/// Fills the (small) file system under the root three ways; each failure must be
/// ENOSPC as a typed error with the previous content intact and nothing left behind.
func diskFull(group: String, scratch: URL) throws {
    let resolver = resolver()
    var failures: [String] = []
    // Defaults: a growing blob until the disk is full.
    let defaults = try SharedDefaults(requiringSuiteName: group, resolver: resolver)
    try defaults.save("before", forKey: "k")
    // A file that can go when nothing else frees space (see below).
    let ballast = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: group).appendingPathComponent("Library/Caches/ballast")
    try Data(count: 8192).write(to: ballast)
    var saved = 0
    var last = Data()
    while true {
        let blob = Data(repeating: UInt8(saved % 250 + 1), count: (saved + 1) * 8192)
        do {
            try defaults.save(blob, forKey: "blob")
            last = blob
            saved += 1
            if saved > 10_000 { failures.append("defaults: the disk never filled"); break }
        } catch {
            if !isDiskFull(error) || !(error is SharedDefaultsError) { failures.append("defaults: \(type(of: error)) \(error)") }
            break
        }
    }
    do { // a second instance, gone before room is made (it pins the file it read)
        let fresh = try SharedDefaults(requiringSuiteName: group, resolver: resolver)
        if try fresh.load(forKey: "k") as? String != "before" || fresh.data(forKey: "blob") != last {
            failures.append("defaults: the previous content changed")
        }
    }
    let preferences = defaults.fileURL.deletingLastPathComponent()
    if !leftovers(preferences).isEmpty { failures.append("defaults: left \(leftovers(preferences))") }
    say("ok defaults: \(saved) saves, then ENOSPC; previous content intact")
    // Make room, then fill the disk with inbox items. The replaced files' blocks
    // come back when their pins are closed, off this thread. A delete writes the
    // smaller file beside the old one before replacing it, so on a disk left with
    // no free page at all it is refused: then the ballast goes first.
    AtomicFile.waitForBackgroundReleases()
    do {
        try defaults.save(nil, forKey: "blob")
    } catch where isDiskFull(error) {
        try FileManager.default.removeItem(at: ballast)
        try defaults.save(nil, forKey: "blob")
        say("note defaults: the delete needed room for the smaller file; made by removing \(ballast.lastPathComponent) first")
    }
    AtomicFile.waitForBackgroundReleases()
    let inbox = try ShareInbox(groupIdentifier: group, resolver: resolver)
    let attachment = scratch.appendingPathComponent("attachment.bin")
    try Data(repeating: 7, count: 16_384).write(to: attachment)
    var enqueued = 0
    while true {
        do {
            try inbox.enqueue(SharedItem(title: "item \(enqueued)", attachments: [.init(fileURL: attachment)]))
            enqueued += 1
            if enqueued > 100_000 { failures.append("inbox: the disk never filled"); break }
        } catch {
            if !isDiskFull(error) { failures.append("inbox: \(type(of: error)) \(error)") }
            break
        }
    }
    if try inbox.pendingCount() != enqueued { failures.append("inbox: \(try inbox.pendingCount()) pending after \(enqueued) enqueues") }
    let staging = inbox.directory.appendingPathComponent("Staging")
    let staged = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
    if !staged.isEmpty { failures.append("inbox: staging left \(staged)") }
    say("ok inbox: \(enqueued) enqueues, then ENOSPC; all \(enqueued) pending, staging empty")
    // Keychain: the disk is still full.
    let keychain = try Keychain.fromEnvironment()
    let key = GenericPassword(service: "s", account: "a", accessGroup: group)
    do {
        try keychain.save(Data(repeating: 1, count: 200_000), for: key)
        failures.append("keychain: a 200 kB item was saved on a full disk")
    } catch {
        if !isDiskFull(error) || !(error is KeychainError) { failures.append("keychain: \(type(of: error)) \(error)") }
    }
    if try keychain.readIfPresent(key) != nil { failures.append("keychain: an item appeared") }
    let groupDirectory = keychain.device.directory(forAccessGroup: group)
    if !leftovers(groupDirectory).isEmpty { failures.append("keychain: left \(leftovers(groupDirectory))") }
    say("ok keychain: ENOSPC on save, nothing stored")
    // Drained, the disk has room again and everything works.
    var drained = 0
    try inbox.drain { _ in drained += 1 }
    try defaults.save("after", forKey: "k")
    if drained != enqueued || defaults.string(forKey: "k") != "after" { failures.append("recovery: drained \(drained) of \(enqueued)") }
    say("ok recovery: \(drained) items drained, writes work again")
    for failure in failures { say("FAIL " + failure) }
    if !failures.isEmpty { exit(2) }
    say("done")
}
