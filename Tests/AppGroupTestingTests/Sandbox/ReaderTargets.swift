import AppGroupTesting
import Foundation

/// A reading-list app, its share extension and widget, as in the issue that asked
/// for targets that behave like apps: all in `group.com.example.reader`.
struct ReaderTargets {
    static let team = "A1B2C3D4E5"
    static let group = "group.com.example.reader"
    let app: SimulatedTarget
    let share: SimulatedTarget
    let widget: SimulatedTarget
    let notification: SimulatedTarget

    init() throws {
        app = try SimulatedTarget(name: "Reader", kind: .app, entitlements: try Entitlements(
            teamIdentifier: Self.team, bundleIdentifier: "com.example.reader", applicationGroups: [Self.group]),
            infoPlist: .dictionary(["AppGroup": "$(APP_GROUP_ID)"]), buildSettings: ["APP_GROUP_ID": Self.group])
        share = try SimulatedTarget(name: "ReaderShare", kind: .shareExtension, entitlements: try Entitlements(
            teamIdentifier: Self.team, bundleIdentifier: "com.example.reader.share", applicationGroups: [Self.group]),
            infoPlist: .dictionary(["AppGroup": "$(APP_GROUP_ID)"]), buildSettings: ["APP_GROUP_ID": Self.group])
        widget = try SimulatedTarget(name: "ReaderWidget", kind: .widget, entitlements: try Entitlements(
            teamIdentifier: Self.team, bundleIdentifier: "com.example.reader.widget", applicationGroups: [Self.group]),
            infoPlist: nil)
        notification = try SimulatedTarget(name: "ReaderNotifications", kind: .notificationExtension, entitlements: try Entitlements(
            teamIdentifier: Self.team, bundleIdentifier: "com.example.reader.notifications"), infoPlist: nil)
    }
}
