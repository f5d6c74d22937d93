import AppGroupTesting
import Foundation
import Testing
@testable import AppGroupContainer
@testable import SharedDefaults
import AppGroupSystem
import TestSupport

@Suite("Disk failures", .tags(.faults), .dedicatedThreads)
struct DiskFailureTests {
    @Test("a failed save throws (or reports through lastError) and leaves the previous suite intact")
    func diskFull() throws {
        let device = try Device()
        let defaults = try device.defaults()
        try defaults.save("before", forKey: "k")
        let root = device.root.path
        // Fail writes under this test's root only: other tests run beside this one.
        FaultInjection.with({ call, path in call == .write && path.hasPrefix(root) ? .ENOSPC : nil }) {
            #expect {
                try defaults.save("after", forKey: "k")
            } throws: { error in
                guard case .fileSystem(_, .systemCall("write", _, .ENOSPC))? = error as? SharedDefaultsError else { return false }
                return "\(error)".contains("disk is full")
            }
            defaults.set("after", forKey: "k")
            guard case .fileSystem? = defaults.lastError else {
                Issue.record("lastError is \(String(describing: defaults.lastError))")
                return
            }
        }
        #expect(defaults.string(forKey: "k") == "before")
        #expect(try device.defaults(as: device.share).string(forKey: "k") == "before")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: defaults.fileURL.deletingLastPathComponent().path)
            .filter { AtomicFile.isTemporaryName($0) }
        #expect(leftovers.isEmpty, "no temporary file is left behind: \(leftovers)")
        try defaults.save("after", forKey: "k")
        #expect(defaults.string(forKey: "k") == "after")
    }
}
