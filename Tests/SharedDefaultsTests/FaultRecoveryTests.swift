import AppGroupSystem
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
@testable import SharedDefaults

/// A suite after an injected write fault (the faults through every store's save:
/// AppGroupContainerTests' FaultTests).
@Suite("Write faults: a suite repaired", .tags(.faults), .dedicatedThreads)
struct FaultRecoveryTests {
    @Test("a failed save that the next one repairs: after the fault, the same instance writes and reads again")
    func recoveryAfterFault() throws {
        let sandbox = try Sandbox()
        let defaults = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        try defaults.save(1, forKey: "n")
        let count = Tally(0)
        // FaultTests' rename step: every call that puts a temporary in place.
        let rename: Set<FaultInjection.Call> = [.rename, .renameat, .link]
        let prefix = sandbox.base.path
        let plan: FaultInjection.Plan = { call, path in
            guard rename.contains(call), path.hasPrefix(prefix) else { return nil }
            count.update { $0 += 1 }
            return .EIO
        }
        FaultInjection.with(plan) {
            defaults.set(2, forKey: "n")
        }
        guard case .fileSystem(_, .systemCall("renameat", _, .EIO))? = defaults.lastError else {
            Issue.record("lastError is \(String(describing: defaults.lastError))")
            return
        }
        #expect(defaults.integer(forKey: "n") == 1)
        try defaults.save(3, forKey: "n")
        #expect(try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver(sandbox.share)).load(forKey: "n") as? Int == 3)
    }
}
