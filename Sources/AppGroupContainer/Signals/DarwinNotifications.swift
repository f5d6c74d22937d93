import Foundation

/// The device the Darwin notify center of this process posts to and hears from:
/// the signal table of the container root this process resolves containers in
/// (`APP_GROUP_CONTAINERS_ROOT`, which a simulated device sets for each target it
/// launches, else the default root). Darwin notifications are system-wide on an
/// iOS device; here they are device-wide, never across devices.
package enum DarwinNotifications {
    /// Apple documents no limit on a name's length, and libnotify checks none
    /// (`notify_post` sends `strlen(name)` bytes out of line to notifyd); this
    /// package refuses names longer than this many UTF-8 bytes (notify(3):
    /// `NOTIFY_STATUS_INVALID_NAME`; the CF functions report and ignore them), so
    /// a runaway name is said, not hashed.
    package static let nameLimit = 1024

    private static let table = Locked<SignalTable?>(nil)

    /// The table, opened on first use; nil (with a diagnostic) when it cannot be.
    package static func deviceTable() -> SignalTable? {
        if let known = table.withLock({ $0 }) { return known }
        let root = ContainerRoot(ContainerResolver.root())
        do {
            let opened = try SignalTable.forDevice(root: root)
            table.withLock { $0 = opened }
            return opened
        } catch {
            Diagnostics.warn("Darwin notify center: the device's signal table at \(root.path) cannot be used, so nothing is posted or delivered: \(error)")
            return nil
        }
    }

    /// Why `name` is refused; nil when it may be used.
    package static func problem(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.utf8.count > nameLimit { return "the name is \(name.utf8.count) bytes long; the limit is \(nameLimit)" }
        if name.utf8.contains(0) { return "the name contains a NUL byte" }
        return nil
    }
}
