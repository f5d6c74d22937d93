// A scope's identity never reaches another scope's work: not through work hopped
// to a queue or a thread, nor through a task that inherited a scope and entered
// another (issue 13, hostile review).
#if !canImport(Darwin)

import AppGroupContainer

import AppGroupFoundation
import AppGroupTesting
import Foundation
import ProbeSupport
import SharedDefaults
import class SharedDefaults.UserDefaults
@testable import SharedKeychain
import Testing
import Security

/// Waits for `semaphore` from synchronous code (a deadline, not a timing).
func signalled(_ semaphore: DispatchSemaphore, within seconds: Double = 120) -> Bool {
    semaphore.wait(timeout: .now() + seconds) == .success
}

/// Waits for `semaphore` from a task without holding a thread of the cooperative
/// pool (which the work it waits for may need).
func arrived(_ semaphore: DispatchSemaphore, within seconds: Double = 120) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if semaphore.wait(timeout: .now()) == .success { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return false
}

/// Runs `body` on a thread of its own (not one of the cooperative pool's).
func onThread(_ body: @escaping @Sendable () -> Void) {
    Thread(block: body).start()
}

@Suite("Identity scopes never act as another scope's target (issue 13)")
struct ScopeIsolationTests {
    static let widget = SimulatedTarget(name: "ReaderWidget", kind: .widget, entitlements: Targets.widget)

    /// What the widget's work saw from wherever it ran.
    struct Seen: Sendable, CustomStringConvertible {
        let bundle: String?
        let container: String?
        /// Why `Entitlements.current()` refused, if it did.
        let conflict: IdentityScopeConflict?
        /// The write to `UserDefaults.standard` was refused, and `lastError` says so.
        let standardRefused: Bool
        let keychain: OSStatus
        var description: String { "acted as \(bundle ?? "nobody"), container \(container ?? "nil"), keychain \(keychain)" }
    }

    /// The widget's code: it saves to its own defaults, looks up the group's
    /// container and its keychain item.
    static func widgetWork(key: String) -> Seen {
        let defaults = UserDefaults.standard
        defaults.set("from the widget", forKey: key)
        let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Targets.suite)?.path
        let keychain = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: key] as CFDictionary, nil)
        var conflict: IdentityScopeConflict?
        var bundle: String?
        do {
            bundle = try Entitlements.current().bundleIdentifier
        } catch AppGroupError.identityScopeConflict(let refused) {
            conflict = refused
        } catch {}
        let standardRefused: Bool
        if case .suiteUnavailable(_, .identityScopeConflict)? = defaults.lastError { standardRefused = true } else { standardRefused = false }
        return Seen(bundle: bundle, container: container, conflict: conflict, standardRefused: standardRefused, keychain: keychain)
    }

    @Test("an async scope's work hopped to a DispatchQueue, an OperationQueue or a Thread never acts as another task's synchronous scope")
    func asyncScopeHopsNeverActAsAnotherTasksScope() async throws {
        let widgetBox = try Sandbox()
        let appBox = try Sandbox()
        defer { widgetBox.remove(); appBox.remove() }
        // Another test's synchronous scope, held while the widget works (on a thread
        // of its own, so that this test never holds a thread of the cooperative pool
        // waiting for another).
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        onThread {
            ScopeTests.app.run(on: appBox.simulated) {
                holding.signal()
                _ = signalled(release)
            }
            released.signal()
        }
        #expect(await arrived(holding), "the app's scope was entered")
        let widgetScope = widgetBox.simulated.scope(for: Self.widget)
        let appScope = appBox.simulated.scope(for: ScopeTests.app)
        let (seen, carried) = try await Self.widget.run(on: widgetBox.simulated) { () async throws -> ([Hop: Seen], [Hop: Seen]) in
            await Task.yield()
            var seen: [Hop: Seen] = [:]
            var carried: [Hop: Seen] = [:]
            // Where the work starts, in the scope: what the message says to capture.
            let scope = try IdentityScope.active
            for hop in Hop.allCases {
                seen[hop] = try? hop.run { Self.widgetWork(key: "hop-\(hop.rawValue)") }
                carried[hop] = try? hop.run { IdentityScope.run(scope) { Self.widgetWork(key: "carried-\(hop.rawValue)") } }
            }
            return (seen, carried)
        }
        release.signal()
        #expect(await arrived(released), "the app's scope ended")

        #expect(seen.count == Hop.allCases.count && carried.count == Hop.allCases.count, "every hop came back")
        for (hop, seen) in seen {
            #expect(seen.bundle != ScopeTests.app.bundleIdentifier, "\(hop): the widget's work \(seen)")
            #expect(!(seen.container ?? "").hasPrefix(appBox.root.path + "/"), "\(hop): the widget's work \(seen)")
            // Both scopes are live (and maybe other tests'): refused, everywhere, naming both.
            let conflict = try #require(seen.conflict, "\(hop): the widget's work \(seen)")
            #expect(conflict.kind == .ambiguous && conflict.scopes.contains(widgetScope) && conflict.scopes.contains(appScope))
            #expect(conflict.location.contains("thread"), "where the work ran: \(conflict.location)")
            #expect(seen.container == nil && seen.standardRefused && seen.keychain == errSecNotAvailable, "\(hop): \(seen)")
        }
        // Carried explicitly, the hopped work is the widget's, whatever else is live.
        for (hop, carried) in carried {
            #expect(carried.bundle == Targets.widget.bundleIdentifier && !carried.standardRefused, "\(hop): carried \(carried)")
            #expect(carried.container == widgetBox.root.appendingPathComponent(Targets.suite).path)
        }
        let appDefaults = try SharedDefaults(requiringSuiteName: nil, resolver: appBox.simulated.resolver(for: ScopeTests.app))
        let widgetDefaults = try SharedDefaults(requiringSuiteName: nil, resolver: widgetBox.simulated.resolver(for: Self.widget))
        for hop in Hop.allCases {
            #expect(appDefaults.object(forKey: "hop-\(hop.rawValue)") == nil, "\(hop): the widget's write landed in the app's own defaults")
            #expect(widgetDefaults.object(forKey: "hop-\(hop.rawValue)") == nil, "\(hop): a refused write was written")
            #expect(widgetDefaults.string(forKey: "carried-\(hop.rawValue)") == "from the widget", "\(hop): the carried write")
        }
    }

    /// Counts checks and keeps those that acted as the wrong target.
    final class Checks: Sendable {
        private let wrong = Locked<[String]>([])
        private let count = Locked(0)

        /// A refusal (nil) is allowed where `refusable`; another target never is.
        func check(_ seen: String?, _ expected: String, _ what: String, refusable: Bool) {
            count.withLock { $0 += 1 }
            if seen == expected || (refusable && seen == nil) { return }
            wrong.withLock { $0.append("\(what) acted as \(seen ?? "nobody")") }
        }

        var summary: (wrong: Int, of: Int, first: [String]) {
            let wrong = wrong.withLock { $0 }
            return (wrong.count, count.withLock { $0 }, Array(wrong.prefix(3)))
        }
    }

    static let count = 200

    @Test("200 Tasks started in a synchronous scope of the app, each entering a scope of the extension, while the app's scope goes on: each side's own and hopped work only ever acts as its own target")
    func tasksEnteringAnotherScopeAreNotNested() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let checks = Checks()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outerDone = DispatchSemaphore(value: 0)
        let app = ScopeTests.app.bundleIdentifier
        let share = ScopeTests.share.bundleIdentifier
        // The app's synchronous scope runs on a thread of its own: it waits for the
        // first task, which needs a thread of the cooperative pool.
        onThread {
            ScopeTests.app.run(on: box.simulated) {
                for index in 0..<Self.count {
                    Task {
                        ScopeTests.share.run(on: box.simulated) {
                            checks.check(try? Entitlements.current().bundleIdentifier, share, "task \(index)", refusable: false)
                            if index == 0 {
                                // The first stays in its scope while the app's scope does its work.
                                entered.signal()
                                _ = signalled(release)
                            }
                            let hopped = try? Hop.dispatchQueue.run { try Entitlements.current().bundleIdentifier }
                            checks.check(hopped, share, "task \(index)'s hopped work", refusable: true)
                        }
                        finished.signal()
                    }
                }
                if signalled(entered) {
                    for _ in 0..<Self.count {
                        checks.check(try? Entitlements.current().bundleIdentifier, app, "the app's scope", refusable: false)
                        let hopped = try? Hop.thread.run { try Entitlements.current().bundleIdentifier }
                        checks.check(hopped, app, "the app's hopped work", refusable: true)
                    }
                }
                release.signal()
            }
            outerDone.signal()
        }
        #expect(await arrived(outerDone), "the app's scope ended")
        var finishedCount = 0
        for _ in 0..<Self.count where await arrived(finished) { finishedCount += 1 }
        #expect(finishedCount == Self.count, "every task finished within the deadline")
        let summary = checks.summary
        #expect(summary.wrong == 0, "\(summary.wrong) of \(summary.of) checks acted as the wrong target, first: \(summary.first)")
    }

    @Test("the same from an asynchronous scope of the app: tasks that inherited it and enter the extension's scope are not nested in it")
    func tasksInAnAsyncScopeEnteringAnotherAreNotNested() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let checks = Checks()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let app = ScopeTests.app.bundleIdentifier
        let share = ScopeTests.share.bundleIdentifier
        let enteredInTime = await ScopeTests.app.run(on: box.simulated) { () -> Bool in
            var tasks: [Task<Void, Never>] = []
            for index in 0..<Self.count {
                tasks.append(Task {
                    await ScopeTests.share.run(on: box.simulated) {
                        checks.check(try? Entitlements.current().bundleIdentifier, share, "task \(index)", refusable: false)
                        if index == 0 {
                            entered.signal()
                            _ = await arrived(release)
                        }
                        let hopped = try? Hop.dispatchQueue.run { try Entitlements.current().bundleIdentifier }
                        checks.check(hopped, share, "task \(index)'s hopped work", refusable: true)
                    }
                })
            }
            let enteredInTime = await arrived(entered)
            if enteredInTime {
                for _ in 0..<Self.count {
                    checks.check(try? Entitlements.current().bundleIdentifier, app, "the app's scope", refusable: false)
                    let hopped = try? Hop.thread.run { try Entitlements.current().bundleIdentifier }
                    checks.check(hopped, app, "the app's hopped work", refusable: true)
                }
            }
            release.signal()
            for task in tasks { await task.value }
            return enteredInTime
        }
        #expect(enteredInTime, "the first task entered the extension's scope")
        let summary = checks.summary
        #expect(summary.wrong == 0, "\(summary.wrong) of \(summary.of) checks acted as the wrong target, first: \(summary.first)")
    }
}

#endif
