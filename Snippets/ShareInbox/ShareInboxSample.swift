// The samples of the ShareInbox overview and the TheShareInbox article, compiled
// by `swift build`.
import ShareInbox

// snippet.hide
let pageURL = URL(string: "https://example.com/article")!
let clippingURL = URL(fileURLWithPath: "/tmp/clipping.txt")
struct NotesStore { func add(_ url: URL?, title: String?, files: [URL] = []) throws {} }
let notes = NotesStore()
do {
// snippet.show
// In the share extension:
let inbox = try ShareInbox(groupIdentifier: "group.ai.systenics.notes", resolver: .current())
try inbox.enqueue(SharedItem(url: pageURL, title: "An article",
                             attachments: [.init(fileURL: clippingURL)]))

// In the app:
try inbox.drain { item in
    try notes.add(item.url, title: item.title, files: item.attachments)
}   // throw from the handler to keep the item for the next drain
// snippet.hide
}
// snippet.show

import AppGroupContainer
import ShareInbox

// snippet.hide
let resolver = try ContainerResolver.current()
do {
// snippet.show
// The share extension:
let inbox = try ShareInbox(groupIdentifier: "group.ai.systenics.notes", resolver: resolver)
try inbox.enqueue(SharedItem(url: pageURL, title: "An article", kind: "public.url",
                             attachments: [.init(fileURL: clippingURL)]))   // copied into the container

// The app, at launch and whenever the inbox changes:
let watcher = try inbox.observe { /* wake the main loop: drain */ }
try inbox.drain { item in                      // in enqueue order, one at a time
    try notes.add(item.url, title: item.title, files: item.attachments)
}                                              // throw to keep the item for the next drain
// snippet.hide
watcher.cancel()
}
