import AppGroupTesting
import AppGroupContainer
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

@Suite("Observation in one process", .dedicatedThreads)
struct ObservationTests {
    @Test("a cancelled observer gets nothing; one beside it gets the change; equal writes call nothing")
    func cancelAndDeduplicate() throws {
        let device = try Device()
        let defaults = try device.defaults()
        let cancelled = Seen()
        let active = Seen()
        let gone = try defaults.addObserver(forKey: "k") { cancelled.add($0 as? Int) }
        let observation = try defaults.addObserver(forKey: "k") { active.add($0 as? Int) }
        defer { observation.cancel() }
        gone.cancel()
        let writer = try device.defaults(as: device.share)
        writer.set(1, forKey: "k")
        writer.set("unrelated", forKey: "other")   // another key: no call for "k"
        writer.set(2, forKey: "k")
        #expect(eventually(seconds: 5) { active.values.last == 2 })
        #expect(cancelled.values.isEmpty)
        // Both observers are called in one pass per event, so had the cancelled one
        // still been registered it would have been called before the active one.
        #expect(active.values.allSatisfy { $0 == 1 || $0 == 2 }, "\(active.values)")
        #expect(active.values == active.values.sorted { ($0 ?? 0) < ($1 ?? 0) })
        let count = active.values.count
        writer.set(2, forKey: "k")                  // same value: nothing written, nothing called
        writer.set(3, forKey: "k")
        #expect(eventually(seconds: 5) { active.values.last == 3 })
        #expect(active.values.count == count + 1)
    }

    @Test("an observation outlives the instance that made it and never reports a false nil")
    func observationOutlivesInstance() throws {
        let device = try Device()
        let seen = Seen()
        var defaults: SharedDefaults? = try device.defaults()
        defaults?.set(1, forKey: "k")
        let observation = try #require(defaults).addObserver(forKey: "k", initial: true) { seen.add($0 as? Int) }
        defer { observation.cancel() }
        defaults = nil
        let writer = try device.defaults(as: device.share)
        writer.set(2, forKey: "k")
        #expect(eventually(seconds: 5) { seen.values.last == 2 })
        #expect(seen.values == [1, 2])
    }

    @Test("the async sequence starts with the current value; removing the key delivers nil")
    func removalDeliversNil() async throws {
        let device = try Device()
        let defaults = try device.defaults()
        defaults.set("x", forKey: "k")
        var iterator = defaults.observe("k").makeAsyncIterator()
        let first = await iterator.next()
        #expect((first ?? nil) as? String == "x")
        defaults.removeObject(forKey: "k")
        let next = await iterator.next()
        guard case .some(.none) = next else {
            Issue.record("expected the removal as a nil value, got \(String(describing: next))")
            return
        }
    }
}
