import AppGroupContainer
import Foundation

/// Records on its device each refusal that is surely a scope's own work: a task
/// started in `target.run(on: device)` that outlived it (``IdentityScopeConflict/Kind/ended``),
/// so that the device counts as failed (``SimulatedDevice/hasFailed``) with the
/// message. A refusal of hopped work (``IdentityScopeConflict/Kind/ambiguous``) is
/// not recorded: it names every live scope, and which one's work it was is what
/// cannot be known; the refused call says so itself.
enum ScopeRefusalRecorder {
    static let installed: Void = IdentityScopeRefusals.observe { conflict in
        guard conflict.kind == .ended else { return }
        for scope in conflict.scopes {
            // A device's root is `<device directory>/containers`.
            LiveDevices.recordFailure(conflict.description, onDeviceAt: scope.root?.deletingLastPathComponent())
        }
    }
}
