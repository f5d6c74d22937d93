#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// The uniform type identifiers share extensions test for, and how they conform to
/// one another, as Apple's type tree has them: enough for
/// `hasItemConformingToTypeIdentifier(_:)` to answer as on iOS for what a share sheet
/// hands over (links, text, images, files). An identifier outside the tree conforms
/// only to itself (and `public.item`), as a type Apple does not know does.
package enum TypeIdentifiers {
    package static let url = "public.url"
    package static let fileURL = "public.file-url"
    package static let plainText = "public.plain-text"
    package static let image = "public.image"
    package static let data = "public.data"

    /// Each identifier's direct parents in Apple's type tree.
    static let parents: [String: [String]] = [
        "public.item": [], "public.content": [], "public.data": ["public.item"],
        "public.url": ["public.data"], "public.file-url": ["public.url"],
        "public.text": ["public.data", "public.content"], "public.plain-text": ["public.text"],
        "public.utf8-plain-text": ["public.plain-text"], "public.html": ["public.text"],
        "public.json": ["public.text"],
        "public.image": ["public.data", "public.content"], "public.jpeg": ["public.image"],
        "public.png": ["public.image"], "public.heic": ["public.image"], "com.compuserve.gif": ["public.image"],
        "com.adobe.pdf": ["public.data", "public.content"],
        "public.movie": ["public.data", "public.content"], "public.mpeg-4": ["public.movie"],
        "com.apple.quicktime-movie": ["public.movie"],
    ]

    /// Whether `type` is `other` or descends from it (Apple's `UTTypeConformsTo`):
    /// identifiers compare case-insensitively, as Apple's do.
    package static func conforms(_ type: String, to other: String) -> Bool {
        let type = type.lowercased(), other = other.lowercased()
        if type == other || other == "public.item" { return true }
        var seen: Set<String> = [type]
        var frontier = [type]
        while let next = frontier.popLast() {
            for parent in parents[next] ?? [] where seen.insert(parent).inserted {
                if parent == other { return true }
                frontier.append(parent)
            }
        }
        return false
    }

    /// The type of a file by its name's extension, as iOS infers it for a file an
    /// item provider is made from; `public.data` for an extension it does not know.
    package static func forFile(_ url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "jpg", "jpeg": "public.jpeg"
        case "png": "public.png"
        case "heic": "public.heic"
        case "gif": "com.compuserve.gif"
        case "pdf": "com.adobe.pdf"
        case "txt", "text": "public.plain-text"
        case "html", "htm": "public.html"
        case "json": "public.json"
        case "mp4": "public.mpeg-4"
        case "mov": "com.apple.quicktime-movie"
        default: "public.data"
        }
    }
}
#endif
