// Several targets in one test process: an identity scope every API honours,
// including from work hopped to a DispatchQueue, an OperationQueue or a Thread
// (issue 12, part 5). What hopped work sees when its scope is the only one is
// tested in ScopeProbe, a process of its own (issue 13).
#if !canImport(Darwin)

import AppGroupContainer

import AppGroupFoundation
import AppGroupTesting
import Foundation
import ProbeSupport
import SharedDefaults
@testable import SharedKeychain
import Testing
import TestSupport
import Security

@Suite("One process, several targets: identity scopes (issue 12, part 5)", .tags(.multiprocess), .dedicatedThreads)
struct ScopeTests {
    static let keychainDevice = [KeychainDevice.environmentKey: "phone"]
    static let share = SimulatedTarget(name: "ReaderShare", kind: .shareExtension, entitlements: Targets.share)
    static let app = SimulatedTarget(name: "Reader", kind: .app, entitlements: Targets.app)

    /// ScopeProbe (Tests/Probes/ScopeProbe) runs `scenario` on `box`'s device, in a process
    /// whose only scopes are the scenario's: what hopped work sees when its scope is
    /// the only one (in this process, other tests' scopes run in parallel).
    static func probe(_ scenario: String, on box: Sandbox) throws -> [String] {
        let outcome = try LaunchedProcess(built: "ScopeProbe", arguments: [scenario, "--root", box.root.path],
                                          environment: ProcessInfo.processInfo.environment).wait(timeout: 120)
        try #require(outcome.status == 0 && !outcome.timedOut, "ScopeProbe \(scenario): \(outcome.standardError)")
        return outcome.outputLines
    }

    @Test("as the share extension, then as the app, each from a DispatchQueue, an OperationQueue and a Thread: containerURL, a defaults suite, SecItemAdd/CopyMatching (in a process of their own)")
    func extensionThenAppFromHops() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let container = box.root.appendingPathComponent(Targets.suite).path
        let lines = try Self.probe("extension-then-app", on: box)
        #expect(lines == Hop.allCases.map { hop in
            let tag = "draft-\(hop.rawValue)"
            // Targets without the group or Keychain Sharing get iOS's answers from hops too.
            return "\(hop.rawValue) written=\(container) read=\(container)|\(tag)|from \(tag)|\(errSecSuccess)|\(tag) "
                + "notify=\(errSecMissingEntitlement) stranger=nil"
        })
        #expect(try box.device.itemCount() == Hop.allCases.count)
        // What the probe wrote is on this device, readable by the app from here.
        let read = try SharedDefaults(requiringSuiteName: Targets.suite, resolver: box.simulated.resolver(for: Self.app))
        #expect(read.string(forKey: "draft-thread") == "from draft-thread")
    }

    @Test("Keychain.withCurrent survives a GCD hop (it returned errSecNotAvailable, -25291, there)")
    func withCurrentSurvivesAHop() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.keychain(Targets.app).add(Data("v".utf8), for: GenericPassword(service: "s", account: "a"))
        #expect(try Self.probe("with-current", on: box) == ["status=\(errSecSuccess)"])
    }

    @Test("nested scopes: the inner target holds until it ends, then the outer one again, also on hops")
    func nestedScopes() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let expected = [Targets.app, Targets.share, Targets.share, Targets.app].map(\.bundleIdentifier)
        #expect(try Self.probe("nested", on: box) == ["nested=" + expected.joined(separator: ",")])
        // In this process, where other tests' scopes are live, the task's own view is the same.
        let seen = try Self.app.run(on: box.simulated) { () -> [String] in
            var seen = [try Entitlements.current().bundleIdentifier]
            seen += try Self.share.run(on: box.simulated) { [try Entitlements.current().bundleIdentifier] }
            return seen + [try Entitlements.current().bundleIdentifier]
        }
        #expect(seen == [Targets.app.bundleIdentifier, Targets.share.bundleIdentifier, Targets.app.bundleIdentifier])
    }

    @Test("an async scope alone: work it hops to a queue or a thread is its own (its defaults, its container)")
    func asyncScopeAloneReachesHops() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let container = box.root.appendingPathComponent(Targets.suite).path
        #expect(try Self.probe("async-alone", on: box) == Hop.allCases.map {
            "\($0.rawValue) bundle=\(Targets.widget.bundleIdentifier) container=\(container) standardRefused=false"
        })
        let own = try SharedDefaults(requiringSuiteName: nil, resolver: ContainerResolver(root: box.root, entitlements: Targets.widget))
        #expect(Hop.allCases.allSatisfy { own.string(forKey: "alone-\($0.rawValue)") == "from the widget" })
    }

    @Test("an async scope beside another target's synchronous scope: its hopped work is refused naming both, carried explicitly it is its own, run as no scope it is nobody's")
    func asyncScopeBesideAnotherIsRefusedThenCarried() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let container = box.root.appendingPathComponent(Targets.suite).path
        let both = [Targets.app, Targets.widget].map(\.bundleIdentifier).sorted().joined(separator: ",")
        #expect(try Self.probe("async-beside-sync", on: box) == Hop.allCases.flatMap { hop in [
            "\(hop.rawValue) bundle=refused(ambiguous,\(both)) container=nil standardRefused=true",
            "\(hop.rawValue) carried bundle=\(Targets.widget.bundleIdentifier) container=\(container) standardRefused=false",
            "\(hop.rawValue) unscoped none",
        ] })
        // Refused writes wrote nothing, in the widget's defaults or the app's; carried ones reached the widget's.
        let widget = try SharedDefaults(requiringSuiteName: nil, resolver: ContainerResolver(root: box.root, entitlements: Targets.widget))
        let app = try SharedDefaults(requiringSuiteName: nil, resolver: ContainerResolver(root: box.root, entitlements: Targets.app))
        for hop in Hop.allCases {
            #expect(widget.object(forKey: "beside-\(hop.rawValue)") == nil && app.object(forKey: "beside-\(hop.rawValue)") == nil)
            #expect(widget.string(forKey: "carried-\(hop.rawValue)") == "from the widget")
        }
    }

    @Test("scopes entered on two threads at once run side by side: each one's hops see its own identity or are refused, never the other's")
    func concurrentScopesNeverSeeEachOther() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let targets = [Self.app, Self.share]
        let wrong = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let target = targets[index]
            for _ in 0..<15 {
                let seen = target.run(on: box.simulated) {
                    (own: try? Entitlements.current().bundleIdentifier,
                     hopped: try? Hop.dispatchQueue.run { try Entitlements.current().bundleIdentifier })
                }
                if seen.own != target.bundleIdentifier || (seen.hopped != nil && seen.hopped != target.bundleIdentifier) {
                    wrong.withLock { $0.append("\(target.name): \(seen)") }
                }
            }
        }
        let mistakes = wrong.withLock { $0 }
        #expect(mistakes.isEmpty, "\(mistakes)")
    }

    @Test("the async form: child tasks inherit the scope, a detached task does not")
    func asyncScope() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.keychain(Targets.app).add(Data("v".utf8), for: GenericPassword(service: "s", account: "a"))
        @Sendable func find() -> OSStatus {
            SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"] as CFDictionary, nil)
        }
        let statuses = await Self.share.run(on: box.simulated, environment: Self.keychainDevice) { () -> [OSStatus] in
            await Task.yield()
            let child = await Task { find() }.value
            let detached = await Task.detached { find() }.value
            return [find(), child, detached]
        }
        #expect(statuses == [errSecSuccess, errSecSuccess, errSecNotAvailable])
    }
}

#endif
