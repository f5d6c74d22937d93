// The samples of the SharedDefaults overview and the SharedDefaultsAndiOS
// article, compiled by `swift build`.
import AppGroupContainer   // ContainerResolver, Entitlements
import SharedDefaults

// snippet.hide
let root = URL(fileURLWithPath: "/tmp/device")
let share = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes.share")
struct Draft: Codable { var text: String }
let draft = Draft(text: "Half a thought")
// snippet.show
// A target that lacks the group gets a suite private to it, as on iOS (and a warning on stderr):
let defaults = SharedDefaults(suiteName: "group.ai.systenics.notes")
defaults?.set("draft-42", forKey: "lastSharedItem")
let last = defaults?.string(forKey: "lastSharedItem")

// The throwing variants say why:
let suite = try SharedDefaults(requiringSuiteName: "group.ai.systenics.notes",
                               resolver: ContainerResolver(root: root, entitlements: share))
try suite.save(["id": 42, "title": "Hello"] as [String: Any], forKey: "item") // disk errors reach the caller
try suite.update(Int.self, forKey: "shareCount") { ($0 ?? 0) + 1 } // read-modify-write under one lock
try suite.transaction { s in                                       // several keys, all or nothing
    try s.set(s.integer(forKey: "pending") + 1, forKey: "pending")
    try s.set(Date(), forKey: "lastShare")
}
try suite.set(codable: draft, forKey: "draft")                     // Codable, as a readable plist structure
let restored = try suite.value(Draft.self, forKey: "draft")

// snippet.hide
func observing(_ defaults: SharedDefaults) async throws {
// snippet.show
let observation = try defaults.addObserver(forKey: "lastSharedItem") { value in
    print("now", value ?? "nil")          // on a private thread, one call at a time
}
observation.cancel()                      // or release it, like NSKeyValueObservation

for await count in defaults.observe("shareCount", as: Int.self) {   // the current value first
    print("shareCount", count ?? 0)
}
for await value in defaults.observe("lastSharedItem") {             // Any?
    print("lastSharedItem", value ?? "nil")
}
// snippet.hide
}
