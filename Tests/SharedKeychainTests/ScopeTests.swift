// Several targets in one test process: an identity scope every API honours,
// including from work hopped to a DispatchQueue, an OperationQueue or a Thread
// (issue 12, part 5).
#if !canImport(Darwin)

import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
@testable import SharedKeychain
import Testing

/// Where code under test moves its work: each runs `body` there and waits for it.
enum Hop: String, CaseIterable, Sendable {
    case dispatchQueue, operationQueue, thread

    struct TimedOut: Error, CustomStringConvertible {
        let hop: Hop
        var description: String { "the work hopped to a \(hop) did not finish within 30 s" }
    }

    final class Outcome<T>: @unchecked Sendable {
        var value: Result<T, any Error>?
    }

    /// Runs `body` on the hop's queue or thread and returns its result.
    func run<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        let work: @Sendable () -> Void = {
            outcome.value = Result { try body() }
            done.signal()
        }
        switch self {
        case .dispatchQueue: DispatchQueue(label: "ScopeTests.hop").async(execute: work)
        case .operationQueue: OperationQueue().addOperation(work)
        case .thread: Thread(block: work).start()
        }
        guard done.wait(timeout: .now() + 30) == .success, let value = outcome.value else { throw TimedOut(hop: self) }
        return try value.get()
    }
}

@Suite("One process, several targets: identity scopes (issue 12, part 5)", .dedicatedThreads)
struct ScopeTests {
    static let keychainDevice = [KeychainDevice.environmentKey: "phone"]
    static let share = SimulatedTarget(name: "ReaderShare", kind: .shareExtension, entitlements: Targets.share)
    static let app = SimulatedTarget(name: "Reader", kind: .app, entitlements: Targets.app)
    /// In the App Group, without Keychain Sharing.
    static let notify = SimulatedTarget(name: "ReaderNotify", kind: .notificationExtension, entitlements: Targets.bareExtension)
    /// Another app of the team, in neither group.
    static let stranger = SimulatedTarget(name: "Stranger", kind: .app,
                                          entitlements: Targets.make("com.example.stranger", sharing: false, groups: []))

    /// A failure inside hopped work. `#require` is not used there: off the test's
    /// task, Swift Testing cannot attribute its issue to the test.
    struct HopFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func groupContainer() throws -> URL {
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Targets.suite) else {
            throw HopFailure(description: "containerURL(forSecurityApplicationGroupIdentifier: \(Targets.suite)) returned nil")
        }
        return url
    }

    static func vaultItem(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.scopes",
         kSecAttrAccount as String: account, kSecAttrAccessGroup as String: Targets.vault]
    }

    /// What the share extension does, from wherever its work runs: a file in the
    /// container, a value in the group's defaults suite, a keychain item.
    static func extensionSaves(_ tag: String) throws -> String {
        let container = try groupContainer()
        try Data(tag.utf8).write(to: container.appendingPathComponent("\(tag).txt"))
        try SharedDefaults(requiringSuiteName: Targets.suite).set("from \(tag)", forKey: tag)
        var add = vaultItem(tag)
        add[kSecValueData as String] = Data(tag.utf8)
        let status = SecItemAdd(add as CFDictionary, nil)
        guard status == errSecSuccess else { throw HopFailure(description: "SecItemAdd returned \(status)") }
        return container.path
    }

    /// What the app reads back: the file, the defaults value, the keychain item.
    static func appReads(_ tag: String) throws -> [String] {
        let container = try groupContainer()
        let file = try String(contentsOf: container.appendingPathComponent("\(tag).txt"), encoding: .utf8)
        let value = try SharedDefaults(requiringSuiteName: Targets.suite).string(forKey: tag) ?? "none"
        var query = vaultItem(tag)
        query[kSecReturnData as String] = true
        var found: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &found)
        return [container.path, file, value, "\(status)", (found as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "none"]
    }

    @Test("as the share extension, then as the app, each from a DispatchQueue, an OperationQueue and a Thread: containerURL, a defaults suite, SecItemAdd/CopyMatching")
    func extensionThenAppFromHops() throws {
        let box = try Sandbox()
        defer { box.remove() }
        for hop in Hop.allCases {
            let tag = "draft-\(hop.rawValue)"
            let written = try Self.share.run(on: box.simulated, environment: Self.keychainDevice) {
                try hop.run { try Self.extensionSaves(tag) }
            }
            #expect(written.hasPrefix(box.root.path + "/"), "the container is on the simulated device")
            let read = try Self.app.run(on: box.simulated, environment: Self.keychainDevice) {
                try hop.run { try Self.appReads(tag) }
            }
            #expect(read == [written, tag, "from \(tag)", "\(errSecSuccess)", tag], "\(hop)")

            // The identity really changes: targets without the group or Keychain Sharing get iOS's answers.
            let refused = try Self.notify.run(on: box.simulated, environment: Self.keychainDevice) {
                try hop.run { () -> OSStatus in
                    var query = Self.vaultItem(tag)
                    query[kSecReturnData as String] = true
                    return SecItemCopyMatching(query as CFDictionary, nil)
                }
            }
            #expect(refused == errSecMissingEntitlement, "\(hop)")
            let strangerContainer = try Self.stranger.run(on: box.simulated) {
                try hop.run { FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Targets.suite)?.path }
            }
            #expect(strangerContainer == nil, "\(hop)")
        }
        #expect(try box.device.itemCount() == Hop.allCases.count)
    }

    @Test("Keychain.withCurrent survives a GCD hop (it returned errSecNotAvailable, -25291, there)")
    func withCurrentSurvivesAHop() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.keychain(Targets.app).add(Data("v".utf8), for: GenericPassword(service: "s", account: "a"))
        let status = try asProcess(box.keychain(Targets.share)) {
            try Hop.dispatchQueue.run { () -> OSStatus in
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
                return SecItemCopyMatching(query as CFDictionary, nil)
            }
        }
        #expect(status == errSecSuccess)
    }

    @Test("nested scopes: the inner target holds until it ends, then the outer one again, also on hops")
    func nestedScopes() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let seen = try Self.app.run(on: box.simulated) { () -> [String] in
            var seen = [try Hop.thread.run { try Entitlements.current().bundleIdentifier }]
            seen += try Self.share.run(on: box.simulated) {
                [try Entitlements.current().bundleIdentifier, try Hop.operationQueue.run { try Entitlements.current().bundleIdentifier }]
            }
            seen.append(try Hop.dispatchQueue.run { try Entitlements.current().bundleIdentifier })
            return seen
        }
        #expect(seen == [Targets.app.bundleIdentifier, Targets.share.bundleIdentifier, Targets.share.bundleIdentifier,
                         Targets.app.bundleIdentifier])
    }

    @Test("scopes entered on two threads at once serialise: each one's hops only ever see its own identity")
    func concurrentScopesSerialise() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let targets = [Self.app, Self.share]
        let mismatches = Hop.Outcome<Int>()
        mismatches.value = .success(0)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let target = targets[index]
            for _ in 0..<15 {
                let seen = try? target.run(on: box.simulated) {
                    try Hop.dispatchQueue.run { try Entitlements.current().bundleIdentifier }
                }
                if seen != target.bundleIdentifier {
                    lock.lock()
                    mismatches.value = .success(((try? mismatches.value?.get()) ?? 0) + 1)
                    lock.unlock()
                }
            }
        }
        #expect(try mismatches.value?.get() == 0)
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
