#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// The uniform type identifiers the system declares that app and extension code
/// names (`UTType`'s static types), and how they conform to one another, as
/// Apple's type tree has them: one table, read by `NSItemProvider` (what
/// `hasItemConformingToTypeIdentifier(_:)` answers, the type of a file) and by the
/// UniformTypeIdentifiers module (`UTType`). An identifier outside the table
/// conforms only to itself and `public.item`, as a type Apple does not know does.
package enum TypeIdentifiers {
    package static let url = "public.url"
    package static let fileURL = "public.file-url"
    package static let plainText = "public.plain-text"
    package static let image = "public.image"
    package static let data = "public.data"

    /// A type the system declares: its identifier, its direct parents, its filename
    /// extensions and MIME types (the preferred first), and its description.
    package struct Declaration: Sendable {
        package let identifier: String
        package let parents: [String]
        package let extensions: [String]
        package let mimeTypes: [String]
        package let description: String
    }

    private static func type(_ identifier: String, _ parents: [String], _ description: String,
                             extensions: [String] = [], mimeTypes: [String] = []) -> Declaration {
        Declaration(identifier: identifier, parents: parents, extensions: extensions, mimeTypes: mimeTypes, description: description)
    }

    /// The declarations, from Apple's UTCoreTypes: the abstract base types, then
    /// text, images, audiovisual content, documents, archives and the rest.
    package static let declarations: [Declaration] = [
        type("public.item", [], "item"),
        type("public.content", [], "content"),
        type("public.composite-content", ["public.content"], "mixed content"),
        type("public.data", ["public.item"], "data"),
        type("public.directory", ["public.item"], "directory"),
        type("public.folder", ["public.directory"], "folder"),
        type("public.volume", ["public.folder"], "volume"),
        type("com.apple.package", ["public.directory"], "package"),
        type("com.apple.bundle", ["public.directory"], "bundle"),
        type("public.symlink", ["public.item"], "symbolic link"),
        type("com.apple.alias-file", ["public.data"], "alias"),
        type("public.url", ["public.data"], "URL"),
        type("public.file-url", ["public.url"], "file URL"),
        type("com.apple.bookmark", ["public.data"], "URL bookmark data"),
        type("public.text", ["public.data", "public.content"], "text"),
        type("public.plain-text", ["public.text"], "plain text document", extensions: ["txt", "text"], mimeTypes: ["text/plain"]),
        type("public.utf8-plain-text", ["public.plain-text"], "Unicode text (UTF-8)"),
        type("public.utf16-external-plain-text", ["public.plain-text"], "Unicode text (UTF-16, external)"),
        type("public.utf16-plain-text", ["public.plain-text"], "Unicode text (UTF-16)"),
        type("public.delimited-values-text", ["public.text"], "delimited values text"),
        type("public.comma-separated-values-text", ["public.delimited-values-text"], "comma-separated values", extensions: ["csv"], mimeTypes: ["text/csv", "text/comma-separated-values"]),
        type("public.tab-separated-values-text", ["public.delimited-values-text"], "tab-separated values", extensions: ["tsv"], mimeTypes: ["text/tab-separated-values"]),
        type("public.utf8-tab-separated-values-text", ["public.tab-separated-values-text", "public.utf8-plain-text"], "UTF-8 tab-separated values"),
        type("public.rtf", ["public.text"], "rich text document", extensions: ["rtf"], mimeTypes: ["text/rtf", "application/rtf"]),
        type("public.html", ["public.text"], "HTML text", extensions: ["html", "htm"], mimeTypes: ["text/html"]),
        type("public.xml", ["public.text"], "XML text", extensions: ["xml"], mimeTypes: ["application/xml", "text/xml"]),
        type("public.yaml", ["public.text"], "YAML", extensions: ["yaml", "yml"], mimeTypes: ["application/x-yaml"]),
        type("public.json", ["public.text"], "JSON", extensions: ["json"], mimeTypes: ["application/json"]),
        type("public.source-code", ["public.plain-text"], "source code"),
        type("public.swift-source", ["public.source-code"], "Swift source", extensions: ["swift"]),
        type("public.script", ["public.source-code"], "script"),
        type("public.shell-script", ["public.script"], "shell script", extensions: ["sh", "command"], mimeTypes: ["application/x-sh"]),
        type("com.netscape.javascript-source", ["public.source-code"], "JavaScript", extensions: ["js"], mimeTypes: ["text/javascript"]),
        type("public.log", ["public.plain-text"], "log file", extensions: ["log"]),
        type("com.apple.property-list", ["public.data"], "property list", extensions: ["plist"]),
        type("com.apple.xml-property-list", ["public.xml", "com.apple.property-list"], "XML property list"),
        type("com.apple.binary-property-list", ["com.apple.property-list"], "binary property list"),
        type("public.image", ["public.data", "public.content"], "image"),
        type("public.jpeg", ["public.image"], "JPEG image", extensions: ["jpeg", "jpg", "jpe"], mimeTypes: ["image/jpeg"]),
        type("public.png", ["public.image"], "PNG image", extensions: ["png"], mimeTypes: ["image/png"]),
        type("com.compuserve.gif", ["public.image"], "GIF image", extensions: ["gif"], mimeTypes: ["image/gif"]),
        type("public.tiff", ["public.image"], "TIFF image", extensions: ["tiff", "tif"], mimeTypes: ["image/tiff"]),
        type("com.microsoft.bmp", ["public.image"], "Windows bitmap image", extensions: ["bmp"], mimeTypes: ["image/bmp"]),
        type("com.microsoft.ico", ["public.image"], "Windows icon image", extensions: ["ico"], mimeTypes: ["image/vnd.microsoft.icon"]),
        type("public.svg-image", ["public.image"], "SVG image", extensions: ["svg"], mimeTypes: ["image/svg+xml"]),
        type("org.webmproject.webp", ["public.image"], "WebP image", extensions: ["webp"], mimeTypes: ["image/webp"]),
        type("public.heif-standard", ["public.image"], "HEIF image"),
        type("public.heic", ["public.heif-standard"], "HEIC image", extensions: ["heic"], mimeTypes: ["image/heic"]),
        type("public.heif", ["public.heif-standard"], "HEIF image", extensions: ["heif"], mimeTypes: ["image/heif"]),
        type("public.camera-raw-image", ["public.image"], "raw image"),
        type("com.apple.live-photo", [], "Live Photo"),
        type("public.audiovisual-content", ["public.data", "public.content"], "audiovisual content"),
        type("public.movie", ["public.audiovisual-content"], "movie"),
        type("public.video", ["public.movie"], "video"),
        type("public.audio", ["public.audiovisual-content"], "audio"),
        type("com.apple.quicktime-movie", ["public.movie"], "QuickTime movie", extensions: ["mov", "qt"], mimeTypes: ["video/quicktime"]),
        type("public.mpeg", ["public.movie"], "MPEG movie", extensions: ["mpg", "mpeg"], mimeTypes: ["video/mpeg"]),
        type("public.mpeg-4", ["public.movie"], "MPEG-4 movie", extensions: ["mp4", "mpg4"], mimeTypes: ["video/mp4"]),
        type("public.mpeg-4-audio", ["public.mpeg-4", "public.audio"], "MPEG-4 audio", extensions: ["m4a"], mimeTypes: ["audio/mp4", "audio/x-m4a"]),
        type("public.mp3", ["public.audio"], "MP3 audio", extensions: ["mp3"], mimeTypes: ["audio/mpeg", "audio/mp3"]),
        type("com.microsoft.waveform-audio", ["public.audio"], "Waveform audio", extensions: ["wav", "wave"], mimeTypes: ["audio/vnd.wave", "audio/wav"]),
        type("public.aiff-audio", ["public.audio"], "AIFF audio", extensions: ["aiff", "aif"], mimeTypes: ["audio/aiff"]),
        type("com.adobe.pdf", ["public.data", "public.composite-content"], "PDF document", extensions: ["pdf"], mimeTypes: ["application/pdf"]),
        type("com.apple.rtfd", ["com.apple.package", "public.composite-content"], "rich text document with attachments", extensions: ["rtfd"]),
        type("com.apple.webarchive", ["public.data", "public.composite-content"], "web archive", extensions: ["webarchive"], mimeTypes: ["application/x-webarchive"]),
        type("org.idpf.epub-container", ["public.data", "public.composite-content"], "EPUB document", extensions: ["epub"], mimeTypes: ["application/epub+zip"]),
        type("public.presentation", ["public.composite-content"], "presentation"),
        type("public.spreadsheet", ["public.content"], "spreadsheet"),
        type("public.archive", ["public.data"], "archive"),
        type("public.zip-archive", ["public.archive"], "ZIP archive", extensions: ["zip"], mimeTypes: ["application/zip"]),
        type("org.gnu.gnu-zip-archive", ["public.archive"], "gzip archive", extensions: ["gz", "gzip"], mimeTypes: ["application/x-gzip", "application/gzip"]),
        type("public.tar-archive", ["public.archive"], "tar archive", extensions: ["tar"], mimeTypes: ["application/x-tar"]),
        type("public.contact", ["public.item"], "contact"),
        type("public.vcard", ["public.text", "public.contact"], "vCard", extensions: ["vcf", "vcard"], mimeTypes: ["text/vcard", "text/x-vcard"]),
        type("public.message", ["public.item"], "message"),
        type("public.calendar-event", ["public.item"], "calendar event"),
        type("com.apple.ical.ics", ["public.data", "public.calendar-event"], "iCalendar", extensions: ["ics"], mimeTypes: ["text/calendar"]),
        type("public.font", ["public.data"], "font"),
        type("public.executable", ["public.item"], "executable"),
        type("public.database", ["public.item"], "database"),
        type("public.bookmark", ["public.url"], "bookmark"),
        type("com.apple.internet-location", ["public.data"], "internet location", extensions: ["inetloc"]),
        type("com.microsoft.internet-shortcut", ["public.data"], "internet shortcut", extensions: ["url"]),
        type("public.3d-content", ["public.content"], "3D content"),
        type("com.pixar.universal-scene-description-mobile", ["public.3d-content", "public.zip-archive"], "USDZ", extensions: ["usdz"], mimeTypes: ["model/vnd.usdz+zip"]),
    ]

    /// The declarations by lowercased identifier (identifiers compare case-insensitively).
    package static let byIdentifier: [String: Declaration] = {
        var table: [String: Declaration] = [:]
        for declaration in declarations { table[declaration.identifier.lowercased()] = declaration }
        return table
    }()

    /// The declared type a filename extension names (its preferred owner: the
    /// first declaration listing it), compared case-insensitively.
    package static let byExtension: [String: Declaration] = {
        var table: [String: Declaration] = [:]
        for declaration in declarations {
            for name in declaration.extensions where table[name] == nil { table[name] = declaration }
        }
        return table
    }()

    /// The declared type a MIME type names, compared case-insensitively.
    package static let byMIMEType: [String: Declaration] = {
        var table: [String: Declaration] = [:]
        for declaration in declarations {
            for name in declaration.mimeTypes where table[name] == nil { table[name] = declaration }
        }
        return table
    }()

    /// Whether `type` is `other` or descends from it (Apple's `UTTypeConformsTo`):
    /// identifiers compare case-insensitively, as Apple's do.
    package static func conforms(_ type: String, to other: String) -> Bool {
        let type = type.lowercased(), other = other.lowercased()
        if type == other || other == "public.item" { return true }
        return ancestors(of: type).contains(other)
    }

    /// Every type `type` descends from (lowercased), not `type` itself.
    package static func ancestors(of type: String) -> Set<String> {
        var seen: Set<String> = []
        var frontier = [type.lowercased()]
        while let next = frontier.popLast() {
            for parent in byIdentifier[next]?.parents ?? [] where seen.insert(parent.lowercased()).inserted {
                frontier.append(parent.lowercased())
            }
        }
        return seen
    }

    /// The type of a file by its name's extension, as iOS infers it for a file an
    /// item provider is made from; `public.data` for an extension it does not know.
    package static func forFile(_ url: URL) -> String {
        byExtension[url.pathExtension.lowercased()]?.identifier ?? data
    }
}
#endif
