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
}
