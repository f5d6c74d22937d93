import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// What a target asks of its device on its lifecycle channel: a request the device
/// cannot take is refused, with why, to the target alone; a flood costs the device
/// a bounded number of threads and leaves no request unanswered.
@Suite(.tags(.multiprocess, .hostile)) struct DeviceRequestTests {
    static func ask(_ fixture: LifecycleFixture, _ arguments: [String]) async throws -> [String] {
        let outcome = try await fixture.device.run(built: "LifecycleProbe", ["device-request"] + arguments, as: fixture.notes.app, timeout: 300)
        #expect(outcome.succeeded, "\(outcome)")
        return outcome.outputLines.filter { $0 != "ready" && $0 != "done" }
    }

    @Test func aMalformedOrUnknownRequestIsRefusedWithWhy() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let garbage = try await Self.ask(fixture, ["--kind", "keychain-authenticate", "--payload", "{\"device\": 7, \"goal\": \"unlock\"}"])
        #expect(garbage == ["refused the device refused the request: the request is not a keychain authentication request"], "\(garbage)")
        let unknown = try await Self.ask(fixture, ["--kind", "run-as-root", "--payload", "/bin/sh"])
        #expect(unknown.count == 1 && unknown[0].hasPrefix("refused the device refused the request: unknown request \"run-as-root\""), "\(unknown)")
    }

    @Test func aFloodOfRequestsIsEachAnsweredAndBounded() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let answers = try await Self.ask(fixture, ["--kind", "keychain-authenticate", "--payload", "not json", "--count", "40"])
        #expect(answers.count == 40, "every request got an answer: \(answers.count)")
        #expect(answers.allSatisfy { $0.hasPrefix("refused the device refused the request: ") }, "\(Set(answers))")
    }
}
