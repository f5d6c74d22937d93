// The samples of the IdentityAndEntitlements article, compiled by `swift build`.
import AppGroupContainer

let share = try Entitlements(contentsOf: URL(fileURLWithPath: "NotesShare.entitlements"),
                             teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes.share")
let resolver = ContainerResolver(root: URL(fileURLWithPath: "/tmp/device"), entitlements: share)

// iOS semantics: nil when the target lacks the group, but the reason goes to stderr...
let container = resolver.containerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")
// ...and the throwing variant says exactly why:
// "ai.systenics.notes.share is not entitled to the App Group group.ai.systenics.notes: its
//  com.apple.security.application-groups entitlement holds no application groups at all. ...
//  Fix: add the App Groups capability to the ai.systenics.notes.share target and tick ..."
let url = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")
