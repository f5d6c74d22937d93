// The samples of the AppGroupContainer overview, compiled by `swift build`.
import AppGroupContainer
import AppGroupFoundation

// snippet.hide
let deviceRoot = URL(fileURLWithPath: "/tmp/device")
let draftData = Data("{}".utf8)
// snippet.show
let share = try Entitlements(contentsOf: URL(fileURLWithPath: "NotesShare.entitlements"),
                             teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes.share")
let resolver = ContainerResolver(root: deviceRoot, entitlements: share)
let container = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")

var error: NSError?
NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: container.appendingPathComponent("draft.json"),
                                                 options: .forReplacing, error: &error) { url in
    try? draftData.write(to: url, options: .atomic)
}
