#if !canImport(Darwin)
import Foundation
import AppGroupFoundation

/// The types this process declared with `UTType(exportedAs:)` and
/// `UTType(importedAs:)`: on iOS an app lists them in its Info.plist and the
/// system knows them from launch; here they are known from the first such call,
/// so `UTType("com.example.note")` finds a type once it was declared.
final class AppDeclaredTypes: @unchecked Sendable {
    static let shared = AppDeclaredTypes()

    private let lock = NSLock()
    private var types: [String: UTType] = [:]

    /// Declares `identifier` (the system's own type when the system declares it).
    func declare(_ identifier: String, parent: UTType?, kind: UTType.Kind) -> UTType {
        if let declaration = TypeIdentifiers.byIdentifier[identifier.lowercased()] {
            return UTType(identifier: declaration.identifier, kind: .declared)
        }
        let type = UTType(identifier: identifier, parents: parent.map { [$0.identifier] } ?? [], kind: kind)
        lock.withLock { types[identifier.lowercased()] = type }
        return type
    }

    func type(_ identifier: String) -> UTType? {
        lock.withLock { types[identifier.lowercased()] }
    }

    /// The declared types carrying `tag` (lowercased) of `tagClass`.
    func types(tag: String, tagClass: UTTagClass) -> [UTType] {
        lock.withLock { types.values.filter { $0.ownTags[tagClass]?.contains { $0.lowercased() == tag } ?? false } }
            .sorted { $0.identifier < $1.identifier }
    }
}

/// Types made for a tag the system does not know (`UTType(filenameExtension: "xyz")`):
/// the identifier starts `dyn.` and encodes the tag, its class and the supertype, so
/// that `UTType(identifier)` gives the same type back. The encoding is this
/// package's own (Apple's is private); code should not parse it.
enum DynamicTypes {
    static func make(tag: String, tagClass: UTTagClass, parent: UTType?) -> UTType {
        let parentIdentifier = parent?.identifier ?? "public.data"
        let payload = "\(tagClass.rawValue)\n\(tag)\n\(parentIdentifier)"
        let identifier = "dyn." + payload.utf8.map { String(format: "%02x", $0) }.joined()
        return UTType(identifier: identifier, parents: [parentIdentifier], tags: [tagClass: [tag]], kind: .dynamic)
    }

    static func decode(_ identifier: String) -> UTType? {
        let hex = Array(identifier.utf8.dropFirst(4))
        guard hex.count % 2 == 0, hex.count <= 8192 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < hex.count {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
            index += 2
        }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, [UTTagClass.filenameExtension.rawValue, UTTagClass.mimeType.rawValue].contains(parts[0]) else { return nil }
        return make(tag: parts[1], tagClass: UTTagClass(rawValue: parts[0]), parent: UTType(parts[2]))
    }
}
#endif
