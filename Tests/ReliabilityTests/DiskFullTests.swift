import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing

/// True when this machine lets an unprivileged user namespace mount a tmpfs (most
/// Linux systems and containers do); the real-disk-full test needs one.
let canMountTmpfs: Bool = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ReliabilityTests-tmpfs-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let mount = try? LaunchedProcess.run(URL(fileURLWithPath: "/usr/bin/unshare"),
                                         ["-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", directory.path])
    return mount?.succeeded == true
}()

extension ProcessTests {
    @Test("a really full disk (a 512 KiB tmpfs): suite saves, enqueues and keychain saves fail with ENOSPC, lose nothing, leave nothing",
          .enabled(if: canMountTmpfs, "needs unshare -rm and a tmpfs mount"))
    func realDiskFull() throws {
        let sandbox = try Sandbox()
        // In its own mount namespace the child mounts a small tmpfs on the root, then
        // becomes the probe: the full disk is the kernel's, not an injected fault.
        let script = #"mount -t tmpfs -o size=512k tmpfs "$0" && exec "$1" disk-full --group "$2" --scratch "$3""#
        let probe = try #require(SimulatedDevice.builtExecutable(named: "ReliabilityProbe"))
        let child = try LaunchedProcess(executable: URL(fileURLWithPath: "/usr/bin/unshare"),
                              arguments: ["-rm", "sh", "-c", script, sandbox.root.path, probe.path, Sandbox.group, sandbox.scratch.path],
                              environment: sandbox.environment(sandbox.app))
        let end = child.wait(timeout: 120)
        #expect(end.status == 0, "\(end.standardOutput)\(end.standardError)")
        #expect(end.standardOutput.hasSuffix("done\n"))
        let figures = end.standardOutput.split(separator: "\n").filter { $0.hasPrefix("ok ") }.map { $0.dropFirst(3) }
        #expect(figures.count == 4)
        report("real disk full (tmpfs 512 KiB): " + figures.joined(separator: "; "))
    }
}
