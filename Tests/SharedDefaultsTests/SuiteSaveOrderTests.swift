import AppGroupSystem
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
@testable import AppGroupContainer
@testable import SharedDefaults

/// The order of a suite save's system calls, from a trace of the seam.
@Suite("System-call order: a suite save", .tags(.faults), .dedicatedThreads)
struct SuiteSaveOrderTests {
    @Test("a suite save: lock, temporary written and fsynced, rename, directory fsync, unlock, in that order")
    func suiteSaveOrder() throws {
        let sandbox = try Sandbox()
        let defaults = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        try defaults.save("before", forKey: "k")
        let suite = defaults.fileURL.standardizedFileURL.path
        let lockFile = try FileCoordinator.lockFileURL(for: defaults.fileURL).standardizedFileURL.path
        let (calls, _) = try FaultInjection.trace { try defaults.save("after", forKey: "k") }
        let lock = Trace.first(calls) { $0.call == .lock && $0.path == lockFile }
        let fileSync = Trace.first(calls) { $0.call == .fsync && Trace.isTemporary($0.path) }
        let rename = Trace.first(calls) { $0.call == .renameat && $0.path == suite }
        let directorySync = Trace.last(calls) { $0.call == .fsync && $0.path == (suite as NSString).deletingLastPathComponent }
        let unlock = Trace.last(calls) { $0.call == .unlock && $0.path == lockFile }
        #expect(lock < fileSync && fileSync < rename && rename < directorySync && directorySync < unlock, "\(calls)")
        #expect(try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver(sandbox.share)).load(forKey: "k") as? String == "after")
    }
}
