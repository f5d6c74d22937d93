// The package's own callbacks run on queues and threads of their own: they answer
// as the identity that registered them, never as a scope live elsewhere; and a task
// that outlives the scope it inherited is refused (issue 13, the class search).
#if !canImport(Darwin)

import AppGroupContainer

import AppGroupFoundation
import AppGroupTesting
import Foundation
import SharedDefaults
@testable import SharedKeychain
import Testing
import LocalAuthentication

@Suite("Callbacks answer as who registered them; tasks that outlive their scope are refused (issue 13)")
struct ScopeCarryingTests {
    static let widget = ScopeIsolationTests.widget
    static let app = ScopeTests.app

    /// Runs `body` while a synchronous scope of the app is held on a thread of its
    /// own, as another test's would be: the one live scope, unless others are.
    static func whileTheAppsScopeIsHeld<T>(on device: SimulatedDevice, _ body: () async throws -> T) async throws -> T {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        onThread {
            app.run(on: device) {
                holding.signal()
                _ = signalled(release)
            }
            released.signal()
        }
        try #require(await arrived(holding), "the app's scope was entered")
        do {
            let result = try await body()
            release.signal()
            #expect(await arrived(released))
            return result
        } catch {
            release.signal()
            _ = await arrived(released)
            throw error
        }
    }

    /// Who the calling code is, or why it was refused.
    @Sendable static func who() -> String {
        do {
            return try Entitlements.current().bundleIdentifier
        } catch {
            return "refused: \(error)"
        }
    }

    @Test("a SharedDefaults observer added in the widget's scope is called as the widget, after that scope ended and while the app's is live")
    func defaultsObserverRunsAsItsRegistrant() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let seen = Locked<[String]>([])
        let called = DispatchSemaphore(value: 0)
        let observation = try Self.widget.run(on: box.simulated) {
            try SharedDefaults(requiringSuiteName: Targets.suite).addObserver(forKey: "shared") { _ in
                seen.withLock { $0.append(Self.who()) }
                called.signal()
            }
        }
        defer { observation.cancel() }
        try await Self.whileTheAppsScopeIsHeld(on: box.simulated) {
            try SharedDefaults(requiringSuiteName: Targets.suite, resolver: box.simulated.resolver(for: Self.app)).set(1, forKey: "shared")
            #expect(await arrived(called), "the observer was called")
        }
        #expect(seen.withLock { $0 } == [Targets.widget.bundleIdentifier])
    }

    @Test("a DirectoryWatcher (the share inbox's observer) made in the widget's scope calls its handler as the widget")
    func directoryWatcherRunsAsItsMaker() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let seen = Locked<[String]>([])
        let called = DispatchSemaphore(value: 0)
        let watched = box.simulated.scratch
        let watcher = try Self.widget.run(on: box.simulated) {
            try DirectoryWatcher(directory: watched) { _ in
                seen.withLock { $0.append(Self.who()) }
                called.signal()
            }
        }
        defer { watcher.cancel() }
        try await Self.whileTheAppsScopeIsHeld(on: box.simulated) {
            try Data("x".utf8).write(to: watched.appendingPathComponent("new"))
            #expect(await arrived(called), "the handler was called")
        }
        #expect(seen.withLock { $0 }.allSatisfy { $0 == Targets.widget.bundleIdentifier } && !seen.withLock { $0 }.isEmpty, "\(seen.withLock { $0 })")
    }

    /// A presenter, as iOS code writes one, that notes who it runs as.
    final class WhoPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
        let presentedItemURL: URL?
        let presentedItemOperationQueue = OperationQueue()
        let seen = Locked<[String]>([])

        init(_ url: URL) {
            presentedItemURL = url
            super.init()
        }

        func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
            seen.withLock { $0.append(ScopeCarryingTests.who()) }
            writer(nil)
        }
    }

    @Test("a file presenter registered in the widget's scope gets its messages, on its queue, as the widget")
    func presenterRunsAsItsRegistrant() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let file = box.simulated.scratch.appendingPathComponent("presented.txt")
        try Data("v1".utf8).write(to: file)
        let presenter = WhoPresenter(file)
        Self.widget.run(on: box.simulated) { NSFileCoordinator.addFilePresenter(presenter) }
        defer { NSFileCoordinator.removeFilePresenter(presenter) }
        let failure = try await Self.whileTheAppsScopeIsHeld(on: box.simulated) { () -> NSError? in
            var error: NSError?
            NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: file, options: [], error: &error) { url in
                try? Data("v2".utf8).write(to: url)
            }
            return error
        }
        #expect(failure == nil)
        #expect(presenter.seen.withLock { $0 } == [Targets.widget.bundleIdentifier])
    }

    @Test("LAContext.evaluatePolicy's reply, on another queue, runs as the code that asked")
    func laContextReplyRunsAsTheCaller() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let seen = Locked<[String]>([])
        let replied = DispatchSemaphore(value: 0)
        try await Self.whileTheAppsScopeIsHeld(on: box.simulated) {
            Self.widget.run(on: box.simulated, environment: ScopeTests.keychainDevice) {
                LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "scopes") { _, _ in
                    seen.withLock { $0.append(Self.who()) }
                    replied.signal()
                }
            }
            #expect(await arrived(replied), "the reply came")
        }
        #expect(seen.withLock { $0 } == [Targets.widget.bundleIdentifier])
    }

    /// The conflict `body` was refused with, if it was.
    static func refusal(_ body: () throws -> Void) -> IdentityScopeConflict? {
        do {
            try body()
        } catch AppGroupError.identityScopeConflict(let conflict) {
            return conflict
        } catch {}
        return nil
    }

    @Test("a Task started in a scope that outlives it is refused (the scope ended), and its device records the refusal")
    func aTaskThatOutlivesItsScopeIsRefused() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let go = DispatchSemaphore(value: 0)
        let scope = box.simulated.scope(for: Self.app)
        let task = Self.app.run(on: box.simulated) {
            Task { () -> (inside: String, after: IdentityScopeConflict?) in
                let inside = Self.who()
                _ = await arrived(go)
                return (inside, Self.refusal { _ = try Entitlements.current() })
            }
        }
        // The task may or may not have started before the scope ended; it asks again after.
        go.signal()
        let (_, after) = await task.value
        let conflict = try #require(after, "the task was answered after its scope ended")
        #expect(conflict.kind == .ended && conflict.scopes == [scope])
        #expect(conflict.description.contains("IdentityScope.run(scope)"), "the message says what to do")
        #expect(box.simulated.failures.contains { $0.contains("has ended") }, "\(box.simulated.failures)")
    }

    @Test("a task group's child added in a scope and run after it ended is refused; children that run inside it see it")
    func groupChildrenAfterTheScopeAreRefused() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let go = DispatchSemaphore(value: 0)
        let results = await withTaskGroup(of: (String, String).self) { group -> [String: String] in
            await Self.app.run(on: box.simulated) {
                group.addTask {
                    _ = await arrived(go)
                    return ("late", Self.who())
                }
                async let early = Self.who()
                let inside = await early
                group.addTask { ("inside", inside) }
            }
            go.signal()
            var results: [String: String] = [:]
            for await (name, seen) in group { results[name] = seen }
            return results
        }
        #expect(results["inside"] == Targets.app.bundleIdentifier)
        #expect(results["late"]?.contains("has ended") == true, "\(results["late"] ?? "")")
    }

    @Test("Task.detached in a scope sees none; carried explicitly with IdentityScope.run it is the scope's")
    func detachedTasksCarryTheScopeExplicitly() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let (bare, carried) = try await Self.app.run(on: box.simulated) { () async throws -> (Bool, String) in
            let scope = try IdentityScope.active
            let bare = await Task.detached { (try? IdentityScope.active) == nil }.value
            let carried = await Task.detached { await IdentityScope.run(scope) { () async in Self.who() } }.value
            return (bare, carried)
        }
        #expect(bare)
        #expect(carried == Targets.app.bundleIdentifier)
    }
}

#endif
