import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing

/// How a child process gets a small tmpfs of its own, in a mount namespace of its
/// own (so nothing stays mounted if a test dies): `unshare -m` as root (as the
/// tests run in CI), else `unshare -rm` (an unprivileged user namespace). Nil when
/// neither may mount here; the tests that need one are skipped, and this says so once.
let tmpfsUnshare: [String]? = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
        report("a real full disk: skipped, /usr/bin/unshare is missing")
        return nil
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ReliabilityTests-tmpfs-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for flags in (geteuid() == 0 ? ["-m", "-rm"] : ["-rm"]) {
        let mount = try? LaunchedProcess.run(URL(fileURLWithPath: "/usr/bin/unshare"),
                                             [flags, "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", directory.path])
        if mount?.succeeded == true { return [flags] }
    }
    report("a real full disk: skipped, this machine lets no process mount a tmpfs (unshare -m, unshare -rm)")
    return nil
}()

/// True when ``tmpfsUnshare`` found a way to mount a tmpfs.
let canMountTmpfs = tmpfsUnshare != nil

/// Runs `script` with sh in a mount namespace of its own, after mounting a tmpfs
/// of `size` on `mountPoint`: the script sees the mount point as `$0` and
/// `arguments` as `$1`...
func onSmallFileSystem(size: String, at mountPoint: URL, _ script: String, _ arguments: [String],
                       environment: [String: String], timeout: TimeInterval = 300) throws -> ProcessOutcome {
    let flags = try #require(tmpfsUnshare)
    let mounted = #"mount -t tmpfs -o size=\#(size) tmpfs "$0" || exit 99"# + "\n" + script
    let child = try LaunchedProcess(executable: URL(fileURLWithPath: "/usr/bin/unshare"),
                                    arguments: flags + ["sh", "-c", mounted, mountPoint.path] + arguments, environment: environment)
    return child.wait(timeout: timeout)
}

extension ProcessTests {
    @Test("a really full disk (a 512 KiB tmpfs): suite saves, enqueues and keychain saves fail with ENOSPC, lose nothing, leave nothing",
          .enabled(if: canMountTmpfs, "needs a tmpfs mount (unshare -m as root, or unshare -rm)"))
    func realDiskFull() throws {
        let sandbox = try Sandbox()
        // In its own mount namespace the child mounts a small tmpfs on the root, then
        // becomes the probe: the full disk is the kernel's, not an injected fault.
        let probe = try #require(SimulatedDevice.builtExecutable(named: "ReliabilityProbe"))
        let end = try onSmallFileSystem(size: "512k", at: sandbox.root, #"exec "$1" disk-full --group "$2" --scratch "$3""#,
                                        [probe.path, Sandbox.group, sandbox.scratch.path], environment: sandbox.environment(sandbox.app), timeout: 120)
        #expect(end.status == 0, "\(end.standardOutput)\(end.standardError)")
        #expect(end.standardOutput.hasSuffix("done\n"))
        let figures = end.standardOutput.split(separator: "\n").filter { $0.hasPrefix("ok ") }.map { $0.dropFirst(3) }
        #expect(figures.count == 4)
        report("real disk full (tmpfs 512 KiB): " + figures.joined(separator: "; "))
    }

    /// Issue 23, finding 3: on a full disk a drain must still deliver, and so free
    /// the space: a journal item's delivery needs no new block (its cursor was
    /// written whole when made), and what cannot be done for want of space (a
    /// cursor not made yet, a copy to Quarantine/) waits for a later drain.
    @Test("a full disk (a 256 KiB tmpfs) holding journal items and items with attachments: the drains deliver every acknowledged item once, in order, and empty it; enqueues work again",
          .enabled(if: canMountTmpfs, "needs a tmpfs mount (unshare -m as root, or unshare -rm)"))
    func drainEmptiesAFullDisk() throws {
        let sandbox = try Sandbox()
        let probe = try #require(SimulatedDevice.builtExecutable(named: "ReliabilityProbe"))
        let out = sandbox.scratch.path
        let script = #"""
            "$1" inbox-fill --group "$2" --scratch "$3" --attachment-bytes 6000 > "$3/fill.out" 2> "$3/fill.err"
            df -k "$0" | tail -1 > "$3/df-full.out"
            "$1" inbox-drain --group "$2" --until-empty > "$3/drain.out" 2> "$3/drain.err"
            inbox=$(find "$0" -type d -name Inbox | head -1)
            ls -A "$inbox/Items" > "$3/items-left.out"; ls -A "$inbox/Journal" > "$3/journal-left.out"
            "$1" inbox-enqueue --group "$2" --id after --count 2 --attach-every 2 --scratch "$3" > "$3/after.out" 2>&1
            "$1" inbox-drain --group "$2" --until-empty > "$3/drain-after.out" 2>&1
            df -k "$0" | tail -1 > "$3/df-empty.out"
            """#
        let end = try onSmallFileSystem(size: "256k", at: sandbox.root, script, [probe.path, Sandbox.group, out],
                                        environment: sandbox.environment(sandbox.app))
        func lines(_ name: String) -> [String] {
            ((try? String(contentsOfFile: out + "/" + name, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        #expect(end.status == 0, "\(end.standardOutput)\(end.standardError)")
        let fill = lines("fill.out")
        let full = try #require(fill.last { $0.hasPrefix("full ") }, "the disk never filled: \(fill.suffix(3)) \(lines("fill.err"))")
        let counts = full.split(separator: " ").dropFirst().compactMap { Int($0) }
        #expect(counts.count == 2 && counts.allSatisfy { $0 > 0 }, "both kinds were enqueued before the disk filled: \(full)")
        var ledger = InboxLedger()
        ledger.acknowledge(fill)
        ledger.deliver(lines("drain.out"), drainer: "drain on the full disk")
        #expect(ledger.check().isEmpty, "\(ledger.check().prefix(8)); drain: \(lines("drain.out").filter { !$0.hasPrefix("got ") }.prefix(6))")
        #expect(lines("items-left.out").isEmpty, "Items/ after the drains: \(lines("items-left.out"))")
        #expect(lines("journal-left.out") == [".consumer.lock"], "Journal/ after the drains: \(lines("journal-left.out"))")
        var after = InboxLedger()
        after.acknowledge(lines("after.out"))
        after.deliver(lines("drain-after.out"), drainer: "drain after")
        #expect(after.acknowledged.count == 2 && after.check().isEmpty, "\(lines("after.out")) \(after.check())")
        report("full disk drained (tmpfs 256 KiB): \(counts[0]) journal items and \(counts[1]) items with attachments, "
            + "df full: \(lines("df-full.out").first ?? "?"), df after: \(lines("df-empty.out").first ?? "?")")
    }

    /// Issue 23, finding 3: `appgroup defaults delete` on a full disk. A save never
    /// rewrites a suite in place (a crash would leave half a file): it writes the new,
    /// smaller file beside the old one and renames it over, so it needs room for that
    /// file. Where there is none it must say so, and what to do.
    @Test("appgroup defaults delete on a full disk (a tmpfs): refused with what to free, the suite unchanged; once there is room it works",
          .enabled(if: canMountTmpfs, "needs a tmpfs mount (unshare -m as root, or unshare -rm)"))
    func defaultsDeleteOnFullDisk() throws {
        let sandbox = try Sandbox()
        let tool = try #require(SimulatedDevice.builtExecutable(named: "appgroup"))
        let out = sandbox.scratch.path
        let script = #"""
            "$1" create "$2" > /dev/null && "$1" defaults write "$2" first -string hello && "$1" defaults write "$2" second -string world || exit 98
            dd if=/dev/zero of="$0/filler" bs=4096 2> /dev/null
            "$1" defaults delete "$2" first 2> "$3/delete.err"; echo $? > "$3/delete.status"
            "$1" defaults read "$2" > "$3/read-full.out" 2>&1
            rm "$0/filler"
            "$1" defaults delete "$2" first 2> "$3/delete-again.err"; echo $? > "$3/delete-again.status"
            "$1" defaults read "$2" > "$3/read-after.out" 2>&1
            """#
        var environment = sandbox.environment(sandbox.app)
        environment[ContainerResolver.rootEnvironmentKey] = sandbox.root.path
        let end = try onSmallFileSystem(size: "256k", at: sandbox.root, script, [tool.path, Sandbox.group, out], environment: environment)
        func text(_ name: String) -> String { (try? String(contentsOfFile: out + "/" + name, encoding: .utf8)) ?? "" }
        #expect(end.status == 0, "\(end.standardOutput)\(end.standardError)")
        #expect(text("delete.status") == "1\n")
        let message = text("delete.err")
        for phrase in ["disk is full", "writes the new suite file beside the old one", "free at least", "nothing was changed", "run the command again"] {
            #expect(message.contains(phrase), "\"\(phrase)\" not in: \(message)")
        }
        #expect(text("read-full.out").contains("first = hello"), "the suite is unchanged: \(text("read-full.out"))")
        #expect(text("delete-again.status") == "0\n", "\(text("delete-again.err"))")
        #expect(!text("read-after.out").contains("first") && text("read-after.out").contains("second = world"), "\(text("read-after.out"))")
    }
}
