import Foundation
import AppGroupSystem

/// The identity of the code that registers a callback, carried to the queue or
/// thread where the callback later runs, as it runs in the registering process on
/// Apple's platforms: the package's own callbacks (directory watchers and so the
/// defaults and inbox observers, file presenters' messages, `LAContext` replies) run
/// this way, so that they answer as whoever registered them, never as a scope that
/// happens to be live elsewhere.
package struct CarriedIdentity: Sendable {
    /// The scope (nil: none, the process's own identity) or the refusal met where captured.
    private let captured: Result<IdentityScope?, AppGroupError>

    /// The calling code's identity, as ``IdentityScope/active`` answers it now; a
    /// refusal is kept, to be met again by the callback.
    package static func here() -> CarriedIdentity {
        CarriedIdentity(captured: Result { () throws(AppGroupError) in try IdentityScope.activeScope() })
    }

    /// Runs `body` as the captured identity, on the calling thread.
    package func run<T>(_ body: () throws -> T) rethrows -> T {
        switch captured {
        case .success(let scope):
            return try IdentityScope.run(scope, body)
        case .failure(let error):
            return try IdentityScope.$binding.withValue(.refused(error), operation: body)
        }
    }
}

/// Where refusals go besides the error: AppGroupSimulation records a refusal on the
/// device of the scope it names, when the refusal is that scope's own work (a task
/// that outlived it).
package enum IdentityScopeRefusals {
    private static let observers = Locked<[@Sendable (IdentityScopeConflict) -> Void]>([])

    /// Calls `observer` with every refusal from now on, on the refused code's thread.
    package static func observe(_ observer: @escaping @Sendable (IdentityScopeConflict) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    static func report(_ conflict: IdentityScopeConflict) {
        for observer in observers.withLock({ $0 }) { observer(conflict) }
    }
}
