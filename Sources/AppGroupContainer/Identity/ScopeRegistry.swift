#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import AppGroupSystem

/// Who entered a scope: a Swift task, or a thread outside any task.
enum ScopeOwner: Hashable, Sendable {
    case task(Int)
    case thread(UInt)

    /// The calling task, else the calling thread.
    static var current: ScopeOwner {
        if let task = withUnsafeCurrentTask(body: { $0?.hashValue }) { return .task(task) }
        return .thread(threadNumber)
    }

    /// The calling thread's pthread identity (distinct among live threads).
    static var threadNumber: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Where the calling code enters a scope, for messages.
    static var currentDescription: String {
        withUnsafeCurrentTask(body: { $0 != nil }) ? "a task" : ScopeRegistry.threadDescription
    }
}

/// One run of a scope (``IdentityScope/run(_:)`` and its forms).
struct ScopeFrame: Sendable {
    /// Never reused: a frame that ended is never taken for a live one.
    let id: UInt64
    /// The outermost run this one is nested in (its own id when it is outermost).
    let chain: UInt64
    let scope: IdentityScope
    let owner: ScopeOwner
    /// Where it was entered ("a task", "thread …"), for messages.
    let enteredOn: String
}

/// What the task (or, outside any task, the thread) is bound to.
enum ScopeBinding: Sendable {
    /// A run of a scope, this task's or inherited from the task that started it.
    case frame(ScopeFrame)
    /// ``IdentityScope/run(_:_:)`` with nil: explicitly no scope.
    case environment
    /// A refusal captured where a callback was registered, answered again where it runs.
    case refused(AppGroupError)
}

/// The scopes live in the process, as chains: an outermost run and the runs nested
/// in it on the same task or thread, innermost last. A chain's innermost scope is
/// what its work answers as.
///
/// Why chains and not one slot: the slot could only be trusted while one scope held
/// it, which meant making every other scope wait, and a synchronous scope waiting on
/// a thread of Swift's cooperative pool can starve the pool (two threads here) while
/// the holder needs one. Scopes never wait now; code that could belong to several
/// chains is refused instead.
final class ScopeRegistry: Sendable {
    static let shared = ScopeRegistry()

    private struct State {
        var nextID: UInt64 = 1
        var chains: [UInt64: [ScopeFrame]] = [:]
    }
    private let state = Locked(State())

    /// Enters `scope` on the calling task or thread. It nests in `binding`'s chain
    /// only when that chain is live, its innermost run is `binding`'s, and this
    /// task or thread entered it: a task that merely inherited the binding (a
    /// `Task { }`, a child task) starts a chain of its own, which runs beside the
    /// first instead of replacing what the first one's work sees.
    func enter(_ scope: IdentityScope, within binding: ScopeBinding?) -> ScopeFrame {
        let owner = ScopeOwner.current
        let enteredOn = ScopeOwner.currentDescription
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            if case .frame(let outer)? = binding, outer.owner == owner,
               let frames = state.chains[outer.chain], frames.last?.id == outer.id {
                let frame = ScopeFrame(id: id, chain: outer.chain, scope: scope, owner: owner, enteredOn: enteredOn)
                state.chains[outer.chain]?.append(frame)
                return frame
            }
            let frame = ScopeFrame(id: id, chain: id, scope: scope, owner: owner, enteredOn: enteredOn)
            state.chains[id] = [frame]
            return frame
        }
    }

    /// Ends `frame`; its chain ends with its outermost run.
    func exit(_ frame: ScopeFrame) {
        state.withLock { state in
            guard var frames = state.chains[frame.chain] else { return }
            frames.removeAll { $0.id == frame.id }
            state.chains[frame.chain] = frames.isEmpty ? nil : frames
        }
    }

    /// Whether `frame` has not ended.
    func isLive(_ frame: ScopeFrame) -> Bool {
        state.withLock { $0.chains[frame.chain]?.contains { $0.id == frame.id } ?? false }
    }

    /// The scope `binding` answers as, for code in a task or on a thread that has one.
    func scope(for binding: ScopeBinding) throws(AppGroupError) -> IdentityScope? {
        switch binding {
        case .environment:
            return nil
        case .refused(let error):
            throw error
        case .frame(let frame):
            if isLive(frame) { return frame.scope }
            let conflict = IdentityScopeConflict(kind: .ended, scopes: [frame.scope], enteredOn: [frame.enteredOn],
                                                 location: Self.location(inTask: true))
            IdentityScopeRefusals.report(conflict)
            throw .identityScopeConflict(conflict)
        }
    }

    /// The scope of work with no binding and no task (hopped to a queue or a
    /// thread): the innermost scope of the one live chain, nil when none is live.
    /// With several chains of different scopes the work may be any one's: refused.
    func scopeOfHoppedWork() throws(AppGroupError) -> IdentityScope? {
        let innermost = state.withLock { state in
            state.chains.keys.sorted().compactMap { state.chains[$0]?.last }
        }
        var distinct: [ScopeFrame] = []
        for frame in innermost where !distinct.contains(where: { $0.scope == frame.scope }) { distinct.append(frame) }
        if distinct.count <= 1 { return distinct.first?.scope }
        let conflict = IdentityScopeConflict(kind: .ambiguous, scopes: distinct.map(\.scope),
                                             enteredOn: distinct.map(\.enteredOn), location: Self.location(inTask: false))
        IdentityScopeRefusals.report(conflict)
        throw .identityScopeConflict(conflict)
    }

    /// The calling thread, for messages: the main thread, else its number and name.
    static var threadDescription: String {
        if Thread.isMainThread { return "the main thread" }
        let name = Thread.current.name ?? ""
        return "thread 0x" + String(ScopeOwner.threadNumber, radix: 16) + (name.isEmpty ? "" : " (\"\(name)\")")
    }

    /// Where the calling code runs, for a refusal's message.
    static func location(inTask: Bool) -> String {
        var place = "on " + threadDescription
        if let queue = OperationQueue.current, let name = queue.name, !name.isEmpty { place += " (operation queue \"\(name)\")" }
        return inTask ? place + " in a task" : place
    }
}
