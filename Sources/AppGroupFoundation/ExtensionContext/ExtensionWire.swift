#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import PropertyLists

/// How an extension request crosses between the simulated share sheet (the host,
/// AppGroupSimulation) and the extension's process: a directory in the extension's
/// own data container holding `request.plist` (the items, files copied into
/// `Input/`, as iOS hands an extension copies it may read) and, once the extension
/// ends the request, `reply.plist` (returned files in `Output/`). The directory's
/// path is the environment variable ``environmentKey``.
package enum ExtensionWire {
    package static let environmentKey = "APPGROUP_EXTENSION_REQUEST"
    package static let requestName = "request.plist"
    package static let replyName = "reply.plist"

    package struct Representation: Codable, Sendable {
        var type: String
        /// `data`, `string`, `url` or `file` (text: the file's path).
        var kind: String
        var bytes: Data?
        var text: String?
    }

    /// A `userInfo` value that crosses: strings, numbers, Booleans, data and dates.
    package enum Value: Codable, Sendable {
        case string(String), integer(Int), real(Double), bool(Bool), data(Data), date(Date)

        init?(_ value: Any) {
            switch value {
            case let v as String: self = .string(v)
            case let v as Bool: self = .bool(v)
            case let v as Int: self = .integer(v)
            case let v as Double: self = .real(v)
            case let v as Data: self = .data(v)
            case let v as Date: self = .date(v)
            default: return nil
            }
        }

        var object: Any {
            switch self {
            case .string(let v): v
            case .integer(let v): v
            case .real(let v): v
            case .bool(let v): v
            case .data(let v): v
            case .date(let v): v
            }
        }
    }

    package struct Item: Codable, Sendable {
        var title: String?
        var contentText: String?
        var userInfo: [String: Value]?
        var attachments: [[Representation]]?
    }

    package struct Request: Codable, Sendable {
        package var extensionPoint: String
        package var items: [Item]
        /// Seconds the host waits for the request to end.
        package var timeout: Double

        package init(extensionPoint: String, items: [Item], timeout: Double) {
            self.extensionPoint = extensionPoint
            self.items = items
            self.timeout = timeout
        }
    }

    package struct Reply: Codable, Sendable {
        /// `completed` or `cancelled`.
        package var ending: String
        package var items: [Item]
        package var errorDomain: String?
        package var errorCode: Int?
        package var errorDescription: String?

        package init(ending: String, items: [Item], errorDomain: String? = nil, errorCode: Int? = nil, errorDescription: String? = nil) {
            (self.ending, self.items, self.errorDomain, self.errorCode, self.errorDescription) = (ending, items, errorDomain, errorCode, errorDescription)
        }
    }

    /// `items` as they cross; file attachments are copied into `files` (made as
    /// needed), each in a folder of its own, and named by their absolute path, or,
    /// with `relativeNames` (a reply, which the device copies out by descriptor),
    /// by their path relative to `files`.
    package static func encode(_ items: [NSExtensionItem], copyingFilesInto files: URL, relativeNames: Bool = false) throws -> [Item] {
        try encode(items) { source, folderName in
            let folder = files.appendingPathComponent(folderName, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let copy = folder.appendingPathComponent(source.lastPathComponent)
            try FileManager.default.copyItem(at: source, to: copy)
            return relativeNames ? folderName + "/" + source.lastPathComponent : copy.path
        }
    }

    /// `items` as they cross; `store` keeps each file attachment (its source and a
    /// folder name of its own, unique in the request) and returns the name the
    /// representation carries.
    package static func encode(_ items: [NSExtensionItem], storingFiles store: (_ source: URL, _ folder: String) throws -> String) throws -> [Item] {
        try items.enumerated().map { index, item in
            var wire = Item(title: item.attributedTitle?.string, contentText: item.attributedContentText?.string)
            if let info = item.userInfo {
                var values: [String: Value] = [:]
                for (key, value) in info { if let key = key.base as? String, let value = Value(value) { values[key] = value } }
                wire.userInfo = values
            }
            wire.attachments = try item.attachments.map { providers in
                try providers.enumerated().map { number, provider in
                    try provider.representations.map { type, value in
                        switch value {
                        case .data(let data): return Representation(type: type, kind: "data", bytes: data)
                        case .string(let string): return Representation(type: type, kind: "string", text: string)
                        case .url(let url): return Representation(type: type, kind: "url", text: url.absoluteString)
                        case .file(let url):
                            let name = try store(url, "\(index)-\(number)-\(UUID().uuidString.prefix(8))")
                            return Representation(type: type, kind: "file", text: name)
                        }
                    }
                }
            }
            return wire
        }
    }

    /// The files a reply names (`file` representations), in order.
    package static func fileNames(in wire: [Item]) -> [String] {
        wire.flatMap { item in (item.attachments ?? []).flatMap { $0.compactMap { $0.kind == "file" ? $0.text : nil } } }
    }

    /// How many representations `wire` holds (every attachment's, of every item).
    package static func representationCount(in wire: [Item]) -> Int {
        wire.reduce(0) { total, item in total + (item.attachments ?? []).reduce(0) { $0 + $1.count } }
    }

    /// The items `wire` describes; a representation of an unknown kind is left out.
    package static func decode(_ wire: [Item]) -> [NSExtensionItem] {
        decode(wire) { URL(fileURLWithPath: $0) }
    }

    /// ``decode(_:)`` with each file's name mapped by `file` (a reply's names to
    /// the device's copies); a file `file` maps to nil is left out.
    package static func decode(_ wire: [Item], file: (String) -> URL?) -> [NSExtensionItem] {
        wire.map { wireItem in
            let item = NSExtensionItem()
            item.attributedTitle = wireItem.title.map(NSAttributedString.init(string:))
            item.attributedContentText = wireItem.contentText.map(NSAttributedString.init(string:))
            item.userInfo = wireItem.userInfo.map { values in
                Dictionary(uniqueKeysWithValues: values.map { (AnyHashable($0.key), $0.value.object) })
            }
            item.attachments = wireItem.attachments.map { providers in
                providers.map { representations in
                    let provider = NSItemProvider()
                    for r in representations {
                        switch (r.kind, r.bytes, r.text) {
                        case ("data", let bytes?, _): provider.register(.data(bytes), as: r.type)
                        case ("string", _, let text?): provider.register(.string(text), as: r.type)
                        case ("url", _, let text?): if let url = URL(string: text) { provider.register(.url(url), as: r.type) }
                        case ("file", _, let name?): if let url = file(name) { provider.register(.file(url), as: r.type) }
                        default: break
                        }
                    }
                    return provider
                }
            }
            return item
        }
    }

    /// Writes `value` as a binary property list, atomically (a reader never sees half).
    package static func write<T: Encodable>(_ value: T, to url: URL) throws {
        try encoded(value).write(to: url, options: .atomic)
    }

    /// Reads a property list `write` wrote.
    package static func read<T: Decodable>(_ type: T.Type, from url: URL) throws -> T {
        try decoded(type, from: try Data(contentsOf: url))
    }

    /// `value` as the binary property list ``write(_:to:)`` writes.
    package static func encoded<T: Encodable>(_ value: T) throws -> Data {
        try PropertyListCodec.write(try PropertyListTreeEncoder().encode(value), format: .binary)
    }

    /// The value of the property list `data` (the package's bounded reader).
    package static func decoded<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try PropertyListTreeDecoder().decode(type, from: try PropertyListCodec.read(data))
    }
}
#endif
