// The samples of README.md, compiled by `swift build` (never run: they need a
// target's identity). `.ci/docs` checks that README shows them as they are here.
import Foundation
#if !canImport(Darwin)
import AppGroupFoundation  // Linux only: on iOS, Foundation has these
#endif

// snippet.hide
let draftURL = URL(fileURLWithPath: "/tmp/draft.txt")
let draft = Data("Half a thought".utf8)
// snippet.show
let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")
// nil when this target lacks the group, as on iOS; stderr says why.
var error: NSError?
NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: draftURL, options: .forReplacing, error: &error) { url in
    try? draft.write(to: url)      // other processes' coordinated readers and writers wait
}

import Foundation
#if !canImport(Darwin)
import class SharedDefaults.UserDefaults   // the only line iOS code does not have
#endif

let shared = UserDefaults(suiteName: "group.ai.systenics.notes")!
shared.set("draft-42", forKey: "lastSharedItem")

import ShareInbox

// snippet.hide
let pageURL = URL(string: "https://example.com/article")!
struct NotesStore { func add(_ url: URL?, title: String?) throws {} }
let notes = NotesStore()
// snippet.show
let inbox = try ShareInbox(groupIdentifier: "group.ai.systenics.notes", resolver: .current())
try inbox.enqueue(SharedItem(url: pageURL, title: "An article"))   // in the extension
try inbox.drain { item in try notes.add(item.url, title: item.title) }   // in the app

import Security   // this package's module on Linux, Apple's elsewhere

// snippet.hide
let token = "session-token"
// snippet.show
let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                            kSecAttrService as String: "session",
                            kSecAttrAccessGroup as String: "A1B2C3D4E5.ai.systenics.notes.shared",
                            kSecValueData as String: Data(token.utf8)]
let status = SecItemAdd(query as CFDictionary, nil)   // errSecMissingEntitlement in a target without the group
