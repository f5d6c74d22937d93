#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// The reacquirers this process's presenters handed to askers in other processes
/// (``RemotePresenterListener``), each run on its presenter's queue when the asker's
/// `reacquire` request comes, whichever of the two comes first, or when the asker
/// is seen ended (killed during its access).
final class RemoteReacquirers: @unchecked Sendable {
    static let shared = RemoteReacquirers()

    // Guarded by `lock`: reacquirers by "<asker>_<request>", and requests to
    // reacquire that came before the presenter answered.
    private struct Pending {
        var block: (@Sendable () -> Void)?
        var presenter: Handoff<NSFilePresenter>?
        let asker: ProcessKey
    }
    private let lock = NSLock()
    private var pending: [String: Pending] = [:]
    private var sweeping = false
    /// Reacquire requests kept for answers that never come (a removed presenter).
    static let pendingLimit = 1024

    /// The presenter relinquished for request `key`: keep its block for the
    /// asker's `reacquire`, or run it now if that came first.
    func relinquished(_ block: (@Sendable () -> Void)?, key: String, presenter: Handoff<NSFilePresenter>, asker: ProcessKey) {
        let due = lock.withLock { () -> Bool in
            if pending[key] != nil {
                pending[key] = nil
                return true
            }
            if block != nil { pending[key] = Pending(block: block, presenter: presenter, asker: asker) }
            return false
        }
        if due, let block { PresenterRegistry.send(to: presenter.value) { _ in block() } }
        if !due, block != nil { startSweeping() }
    }

    /// The asker's access is over: run the reacquirer of request `key`, or note
    /// that it is due when the presenter has not answered yet.
    func reacquire(_ key: String, asker: ProcessKey) {
        let ready = lock.withLock { () -> Pending? in
            if let known = pending[key], known.block != nil {
                pending[key] = nil
                return known
            }
            if pending.count < Self.pendingLimit { pending[key] = Pending(block: nil, presenter: nil, asker: asker) }
            return nil
        }
        if let ready, let block = ready.block, let presenter = ready.presenter {
            PresenterRegistry.send(to: presenter.value) { _ in block() }
        }
    }

    /// While reacquirers wait, looks every half second for askers that ended
    /// (killed during their access): their presenters get their items back.
    private func startSweeping() {
        let start = lock.withLock { () -> Bool in
            defer { sweeping = true }
            return !sweeping
        }
        guard start else { return }
        let thread = Thread { [self] in
            while true {
                usleep(500_000)
                let orphans = lock.withLock { () -> [Pending]? in
                    let waiting = pending.filter { $0.value.block != nil }
                    if waiting.isEmpty {
                        sweeping = false
                        return nil
                    }
                    let ended = waiting.filter { $0.value.asker.state == nil }
                    for key in ended.keys { pending[key] = nil }
                    return Array(ended.values)
                }
                guard let orphans else { return }
                for orphan in orphans {
                    if let block = orphan.block, let presenter = orphan.presenter {
                        PresenterRegistry.send(to: presenter.value) { _ in block() }
                    }
                }
            }
        }
        thread.name = "NSFilePresenter reacquirers"
        thread.start()
    }
}
#endif
