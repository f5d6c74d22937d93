import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

extension ProcessTests {
    @Test("a really full disk (a 512 KiB tmpfs): suite saves, enqueues and keychain saves fail with ENOSPC, lose nothing, leave nothing", .tags(.hostile),
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
