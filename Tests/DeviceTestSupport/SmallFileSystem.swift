import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// How a child process gets a small tmpfs of its own, in a mount namespace of its
/// own (so nothing stays mounted if a test dies): `unshare -m` as root (as the
/// tests run in CI), else `unshare -rm` (an unprivileged user namespace). Nil when
/// neither may mount here; the tests that need one are skipped, and this says so once.
package let tmpfsUnshare: [String]? = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
        report("a real full disk: skipped, /usr/bin/unshare is missing")
        return nil
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("AppGroupTests-tmpfs-\(getpid())")
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
package let canMountTmpfs = tmpfsUnshare != nil

/// Runs `script` with sh in a mount namespace of its own, after mounting a tmpfs
/// of `size` on `mountPoint`: the script sees the mount point as `$0` and
/// `arguments` as `$1`...
package func onSmallFileSystem(size: String, at mountPoint: URL, _ script: String, _ arguments: [String],
                       environment: [String: String], timeout: TimeInterval = 300) throws -> ProcessOutcome {
    let flags = try #require(tmpfsUnshare)
    let mounted = #"mount -t tmpfs -o size=\#(size) tmpfs "$0" || exit 99"# + "\n" + script
    let child = try LaunchedProcess(executable: URL(fileURLWithPath: "/usr/bin/unshare"),
                                    arguments: flags + ["sh", "-c", mounted, mountPoint.path] + arguments, environment: environment)
    return child.wait(timeout: timeout)
}
