import AppGroupContainer
import AppGroupFoundation
import ProbeSupport
import Foundation

// A helper process for the multi-process tests. Each command does one thing to
// real files with real locks and reports on stdout; exit 0 means it went as asked.
//
//   increment --file F --count N          N coordinated read-increment-write cycles
//   increment-until --file F --until STOP
//                                         coordinated read-increment-write cycles until STOP
//                                         exists; prints "started" after the first, then "done N"
//   hold --file F [--mode read|write]     take a lock, print "locked", sleep until killed
//   lock-path --file F                    print the lock file of F, found from the path alone
//   many-items --dir D --count N          coordinate N distinct items in D; print "open <fds>"
//   wait-lock --file F [--timeout S]      print "waiting", take the write lock; print
//                                         "acquired" or "timeout: <error>" (exit 3)
//   replace --file F --count N --size B   atomically replace F with N uniform files of B bytes
//   read --file F --count N --size B      read F N times, checking it is never torn, short
//                                         or empty; reports how many contents it saw
//   pair --first A --second B --rounds N  lock A and B together N times, incrementing both
//   resolve --group G[,G...]              FileManager.containerURL for each group, with the
//                                         identity and root from the environment; prints
//                                         each path, or "nil <group>" and exits 2
//   save --file F --text T                coordinated atomic save of T into F
//   count-up --file F --split yes|no      NSFileCoordinator read-modify-write of the number in
//                                         F: split across a read and a write (the bug), or not;
//     [--journal J --nested yes|no]       and a journal line in J, inside F's write or after it;
//     [--pick urandom]                    F or F-b, by a byte of /dev/urandom
//   async-waiters --file F --count N      N tasks wait (async coordinate, 30 s timeout) for
//                                         F's write lock; prints "pool free" once other
//                                         async work has run beside them (exit 4 if it
//                                         cannot within 5 s), then "acquired N" when all got it
//   swap-dir --file F --until STOP --attic DIR
//                                         until STOP exists: holding F's lock (a fresh
//                                         descriptor each time, as another program would),
//                                         copy F's directory into a new one, exchange the
//                                         two names, keep the old one in DIR (so its lock
//                                         file stays linked); prints "swapped N"
//   container-save --group G --name N --wait FILE
//                                         resolve G's container (identity and root from the
//                                         environment), save "first" into
//                                         Library/Preferences/N; print "saved first"; wait
//                                         for FILE; save "second": print "saved second", or
//                                         "refused: <error>" for an unsafePath error
//   ns-write --file F --text T [--release FILE]
//                                         NSFileCoordinator write of T into F, in two plain
//                                         halves: prints "half" between them (and waits for
//                                         FILE when given), then "written" after the release
//   ns-move --from A --to B               coordinated move reported with item(at:didMoveTo:)
//   ns-present --item F [--unsaved T] [--silent yes] [--write G --when FILE]
//                                         register a presenter of F that prints each message
//                                         ("save", "relinquishToWriter", "reacquire"...); its
//                                         save writes T with a coordinated write of its own;
//                                         silent: it never answers. Prints "ready", runs until killed
//   seed-save --text T / seed-load        the App Groups guide's clipping.json lines, with
//                                         NSFileCoordinator (SeedClipping.swift); identity and
//                                         root from the environment; seed-load prints
//                                         "clipping: <text>"
//
// Options for every command:
//   --umask OCTAL   set the process umask first (to prove modes do not depend on it)
//   --go FILE       print "ready", then wait until FILE exists (a start barrier, so
//                   that several probes begin at the same moment)
//   --diagnostics stdout|none
//                   replace the package's diagnostics handler, as a host app would:
//                   each line printed as "diagnostic: <line>" on stdout, or dropped

func readCounter(_ url: URL) throws -> Int {
    guard let data = try AtomicFile.read(url, below: .marked(above: url)) else { return 0 }
    return Int(String(decoding: data, as: UTF8.self)) ?? -1_000_000
}

func increment(_ url: URL, coordinator: FileCoordinator) throws {
    try coordinator.coordinate(writingItemAt: url) { url in
        let value = try readCounter(url)
        try AtomicFile.write(Data(String(value + 1).utf8), to: url, below: .marked(above: url), durable: false)
    }
}

/// renameat2(a, b, RENAME_EXCHANGE): swaps two names atomically. Glibc's Swift
/// module does not declare renameat2, so it is looked up at run time.
func exchange(_ a: String, _ b: String) -> Int32 {
    typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { errno = ENOSYS; return -1 }
    let renameat2 = unsafeBitCast(symbol, to: Renameat2.self)
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */)
}

/// True when every byte of `data` equals its first (memcmp of the buffer against
/// itself shifted by one byte: fast even in a debug build).
func isUniform(_ data: Data) -> Bool {
    data.withUnsafeBytes { raw in
        guard let base = raw.baseAddress, raw.count > 1 else { return true }
        return memcmp(base, base + 1, raw.count - 1) == 0
    }
}

if let mask = optionalOption("umask") {
    guard let value = mode_t(mask, radix: 8) else { fail("--umask must be octal, such as 000") }
    umask(value)
}
switch optionalOption("diagnostics") {
case nil: break
case "stdout": Diagnostics.handler = { say("diagnostic: " + $0) }
case "none": Diagnostics.handler = nil
case let other?: fail("--diagnostics takes stdout or none, not \(other)")
}
if let go = optionalOption("go") {
    say("ready")
    while !FileManager.default.fileExists(atPath: go) { usleep(200) }
}

let command = CommandLine.arguments.dropFirst().first ?? ""
do {
    switch command {
    case "increment":
        let url = URL(fileURLWithPath: option("file"))
        let coordinator = FileCoordinator()
        for _ in 0..<intOption("count") { try increment(url, coordinator: coordinator) }
        say("done")
    case "increment-until":
        let url = URL(fileURLWithPath: option("file"))
        let stop = option("until")
        let coordinator = FileCoordinator()
        var done = 0
        repeat {
            try increment(url, coordinator: coordinator)
            done += 1
            if done == 1 { say("started") }
        } while !FileManager.default.fileExists(atPath: stop)
        say("done \(done)")
    case "hold":
        let url = URL(fileURLWithPath: option("file"))
        let body: (URL) -> Void = { _ in
            say("locked")
            while true { sleep(60) }
        }
        if option("mode", "write") == "read" {
            try FileCoordinator().coordinate(readingItemAt: url, byAccessor: body)
        } else {
            try FileCoordinator().coordinate(writingItemAt: url, byAccessor: body)
        }
    case "many-items":
        // N coordinated writes of N distinct items, then how many descriptors are open.
        let directory = URL(fileURLWithPath: option("dir"))
        let coordinator = FileCoordinator()
        for i in 0..<intOption("count") {
            try coordinator.coordinate(writingItemAt: directory.appendingPathComponent("item-\(i)")) { _ in }
        }
        say("open \((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1)")
    case "lock-path":
        // Where this process, knowing only the path, finds the item's lock file.
        say(try FileCoordinator.lockFileURL(for: URL(fileURLWithPath: option("file"))).path)
    case "wait-lock":
        let url = URL(fileURLWithPath: option("file"))
        let timeout = Double(option("timeout", "-1")) ?? -1
        say("waiting")
        let start = Date()
        do {
            try FileCoordinator(timeout: timeout < 0 ? nil : timeout).coordinate(writingItemAt: url) { _ in }
            say("acquired after \(Int(Date().timeIntervalSince(start) * 1000)) ms")
        } catch let error as AppGroupError {
            if case .coordinationTimedOut = error { say("timeout: \(error)"); exit(3) }
            throw error
        }
    case "replace":
        let url = URL(fileURLWithPath: option("file"))
        let size = intOption("size")
        for i in 0..<intOption("count") {
            try AtomicFile.write(Data(repeating: UInt8(i % 251 + 1), count: size), to: url, below: .marked(above: url), durable: false)
        }
        say("done")
    case "read":
        let url = URL(fileURLWithPath: option("file"))
        let size = intOption("size")
        let count = intOption("count")
        var seen = Set<UInt8>()
        for i in 0..<count {
            guard let data = try AtomicFile.read(url, below: .marked(above: url)) else { fail("read \(i): the file is missing") }
            guard data.count == size else { fail("read \(i): \(data.count) bytes, expected \(size)") }
            guard let first = data.first, first != 0, isUniform(data) else { fail("read \(i): torn content") }
            seen.insert(first)
        }
        say("read \(count) times, never torn, \(seen.count) distinct contents")
    case "pair":
        let a = URL(fileURLWithPath: option("first"))
        let b = URL(fileURLWithPath: option("second"))
        let coordinator = FileCoordinator()
        for _ in 0..<intOption("rounds") {
            try coordinator.coordinate(writingItemAt: a, writingItemAt: b) { a, b in
                try AtomicFile.write(Data(String(try readCounter(a) + 1).utf8), to: a, below: .marked(above: a), durable: false)
                try AtomicFile.write(Data(String(try readCounter(b) + 1).utf8), to: b, below: .marked(above: b), durable: false)
            }
        }
        say("done")
    case "resolve":
        for group in option("group").split(separator: ",").map(String.init) {
            // On Darwin that FileManager method is Apple's own (the real group
            // containers); the emulator's resolver, which it wraps elsewhere, answers instead.
            #if canImport(Darwin)
            let found = (try? ContainerResolver.current())?.containerURL(forSecurityApplicationGroupIdentifier: group)
            #else
            let found = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)
            #endif
            guard let url = found else {
                say("nil \(group)")
                exit(2)
            }
            say(url.path)
        }
    case "save":
        let url = URL(fileURLWithPath: option("file"))
        try FileCoordinator().coordinate(writingItemAt: url, options: .forReplacing) { url in
            try AtomicFile.write(Data(option("text").utf8), to: url, below: .marked(above: url))
        }
        say("saved")
    case "async-waiters":
        // In a process of its own, so the test runner's other tasks cannot crowd the pool.
        let file = URL(fileURLWithPath: option("file"))
        let count = intOption("count")
        let acquired = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            Task.detached {
                do {
                    try await FileCoordinator(timeout: 30).coordinate(writingItemAt: file) { (_: URL) async in }
                } catch {
                    fail("a waiter failed: \(error)")
                }
                acquired.signal()
            }
        }
        let ran = DispatchSemaphore(value: 0)
        Task.detached {
            await Task.yield()
            ran.signal()
        }
        guard ran.wait(timeout: .now() + 5) == .success else { fail("the waiting tasks starved the cooperative pool", code: 4) }
        say("pool free")
        for _ in 0..<count { acquired.wait() }
        say("acquired \(count)")
    case "swap-dir":
        // A peer following README's protocol by hand, as another program would: a
        // fresh descriptor on the lock file for every swap (classic lockf lock,
        // step 5 checked), so it always locks the file the path names now.
        let file = URL(fileURLWithPath: option("file"))
        let stop = option("until")
        let attic = URL(fileURLWithPath: option("attic"))
        let directory = file.deletingLastPathComponent()
        let lockPath = try FileCoordinator.lockFileURL(for: file).path
        let fm = FileManager.default
        var swaps = 0
        while !fm.fileExists(atPath: stop) {
            var fd: Int32 = -1
            while true {
                fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
                guard fd >= 0, lockf(fd, F_LOCK, 0) == 0 else { fail("cannot lock \(lockPath): errno \(errno)") }
                var held = stat()
                var named = stat()
                if fstat(fd, &held) == 0, lstat(lockPath, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino { break }
                close(fd)
            }
            // cp -a of the contents (the lock file included) into a new directory,
            // which then takes the original's name: every file gets a new inode.
            let copy = directory.deletingLastPathComponent().appendingPathComponent(".copy-\(swaps)")
            try fm.createDirectory(at: copy, withIntermediateDirectories: false)
            for name in try fm.contentsOfDirectory(atPath: directory.path) {
                // Lock files are empty: made anew rather than read, because closing
                // any descriptor of the locked file would drop this lockf lock.
                let data = name.hasSuffix(".lock") ? Data() : try Data(contentsOf: directory.appendingPathComponent(name))
                try data.write(to: copy.appendingPathComponent(name))
            }
            // In one step (renameat2 RENAME_EXCHANGE), so the path never goes
            // missing; the original, now under the copy's name, is kept in the
            // attic, so its lock file stays linked.
            guard exchange(copy.path, directory.path) == 0 else {
                fail("renameat2(RENAME_EXCHANGE) failed: errno \(errno)")
            }
            try fm.moveItem(at: copy, to: attic.appendingPathComponent("old-\(swaps)"))
            close(fd) // releases the lock
            swaps += 1
            usleep(2000) // let the writers queue up between swaps
        }
        say("swapped \(swaps)")
    case "container-save":
        let container = try ContainerResolver.current().requireContainerURL(forSecurityApplicationGroupIdentifier: option("group"))
        let file = container.appendingPathComponent("Library/Preferences").appendingPathComponent(option("name"))
        let save: (String) throws -> Void = { text in
            try FileCoordinator(timeout: 10).coordinate(writingItemAt: file, options: .forReplacing) { url in
                try AtomicFile.write(Data(text.utf8), to: url, below: .marked(above: url))
            }
        }
        try save("first")
        say("saved first")
        let wait = option("wait")
        while !FileManager.default.fileExists(atPath: wait) { usleep(1000) }
        do {
            try save("second")
            say("saved second")
        } catch let error as AppGroupError {
            guard case .unsafePath = error else { throw error }
            say("refused: \(error)")
        }
    case "ns-write": try NSFileCoordinatorCommands.write()
    case "ns-move": try NSFileCoordinatorCommands.move()
    case "ns-present": PresenterCommands.present()
    case "seed-save": try NSFileCoordinatorCommands.seedSave()
    case "seed-load": try NSFileCoordinatorCommands.seedLoad()
    case "count-up": CounterCommands.countUp()
    default:
        fail("unknown command \(command.isEmpty ? "(none)" : command); see the comment at the top of main.swift", code: 64)
    }
} catch {
    fail("\(error)")
}
