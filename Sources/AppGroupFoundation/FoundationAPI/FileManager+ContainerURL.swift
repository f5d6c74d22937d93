import AppGroupContainer
import Foundation

#if !canImport(Darwin)
extension FileManager {
    /// The App Group container for the calling code's identity (an `IdentityScope`'s,
    /// else the environment's, see AppGroupContainer's `Entitlements.fromEnvironment(_:)`), under the
    /// scope's root, `APP_GROUP_CONTAINERS_ROOT` or the per-user default. Nil, as on
    /// iOS, when the identity is not entitled; the reason goes to standard error
    /// (`Diagnostics`). Nil too, with the conflict said the same way, where the
    /// caller could be another scope's (`AppGroupError.identityScopeConflict(_:)`).
    ///
    /// Linux's Foundation has no such method; this one lets iOS code compile unchanged.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        do {
            return try ContainerResolver.current().containerURL(forSecurityApplicationGroupIdentifier: groupIdentifier)
        } catch {
            Diagnostics.warn("containerURL(forSecurityApplicationGroupIdentifier: \"\(groupIdentifier)\") returned nil: \(error)",
                             kind: Diagnostics.kind(of: error))
            return nil
        }
    }
}
#endif
