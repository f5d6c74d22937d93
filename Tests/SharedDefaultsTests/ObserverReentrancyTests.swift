import AppGroupTesting
import AppGroupContainer
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

/// Callbacks that run while the suite's lock is held.
/// An observer's handler may block on the suite's write lock; the thread holding
/// it (inside a transaction) must still be able to cancel an observation.
@Suite("Observers and writes nested in transactions", .dedicatedThreads)
struct ObserverReentrancyTests {
    @Test("cancelling an observation inside a transaction while its handler waits for the write lock neither stalls nor fails the handler's write")
    func cancelWhileHandlerWaitsForLock() throws {
        let device = try Device()
        let observed = try device.defaults()
        // The handler's writer: its coordinator gives up after 5 s, so a stall shows as a failed write, not a hang.
        let writer = try SharedDefaults(requiringSuiteName: Device.group, resolver: device.resolver(),
                                        coordinationTimeout: 5)
        let inHandler = DispatchSemaphore(value: 0)
        let observation = try observed.addObserver(forKey: "trigger") { value in
            guard value as? Int == 1 else { return }
            inHandler.signal()
            writer.set(1, forKey: "echo")
        }
        let outer = try device.defaults()
        let trigger = try device.defaults()
        var handlerStarted = false
        try outer.transaction { t in
            trigger.set(1, forKey: "trigger") // committed now; the handler runs and waits for the lock
            handlerStarted = inHandler.wait(timeout: .now() + 10) == .success
            observation.cancel()
            try t.set("done", forKey: "outer")
        }
        #expect(handlerStarted)
        #expect(eventually(seconds: 10) { (try? device.defaults().integer(forKey: "echo")) == 1 })
        #expect(writer.lastError == nil, "the handler's write failed: \(String(describing: writer.lastError))")
        #expect(try device.defaults().string(forKey: "outer") == "done")
    }
}
