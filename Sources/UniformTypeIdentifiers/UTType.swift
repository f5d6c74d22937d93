#if !canImport(Darwin)
import Foundation
import AppGroupFoundation

/// A type of data, named by a uniform type identifier (`public.url`,
/// `public.plain-text`, `com.example.note`), as Apple's UniformTypeIdentifiers
/// framework declares it: the system's types (``UTType/url``, ``UTType/plainText``...)
/// with their place in the type tree, filename extensions and MIME types; types an
/// app exports or imports; and dynamic types for a tag the system does not know.
///
/// Identifiers compare case-insensitively, as Apple's do. Conformance is Apple's:
/// every type conforms to itself and to `public.item`, and to every type above it.
public struct UTType: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's identifier, as declared (`public.plain-text`).
    public let identifier: String
    /// Direct parents of a type the system does not declare (exported, imported, dynamic).
    let ownParents: [String]
    let ownTags: [UTTagClass: [String]]
    let kind: Kind

    enum Kind: String, Codable, Sendable { case declared, exported, imported, dynamic }

    init(identifier: String, parents: [String] = [], tags: [UTTagClass: [String]] = [:], kind: Kind) {
        self.identifier = identifier
        ownParents = parents
        ownTags = tags
        self.kind = kind
    }

    /// The system's type `identifier`, or one this process declared with
    /// ``init(exportedAs:conformingTo:)`` or ``init(importedAs:conformingTo:)``
    /// (on iOS: in its Info.plist); nil for an identifier the system does not know.
    public init?(_ identifier: String) {
        if let declaration = TypeIdentifiers.byIdentifier[identifier.lowercased()] {
            self.init(identifier: declaration.identifier, kind: .declared)
        } else if let declared = AppDeclaredTypes.shared.type(identifier) {
            self = declared
        } else if identifier.lowercased().hasPrefix("dyn."), let dynamic = DynamicTypes.decode(identifier) {
            self = dynamic
        } else {
            return nil
        }
    }

    /// A type this app declares as its own (on iOS, listed under
    /// `UTExportedTypeDeclarations` in its Info.plist), conforming to `parentType`.
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self = AppDeclaredTypes.shared.declare(identifier, parent: parentType, kind: .exported)
    }

    /// A type another app owns that this app uses (on iOS, under
    /// `UTImportedTypeDeclarations`), conforming to `parentType`.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self = AppDeclaredTypes.shared.declare(identifier, parent: parentType, kind: .imported)
    }

    /// The type of files with `filenameExtension` that conforms to `supertype`: the
    /// system's when it declares one, else a dynamic type (``isDynamic``). Nil for an
    /// extension that cannot be one (empty, or holding `/` or a NUL).
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// The type of data with `mimeType` that conforms to `supertype`: the system's
    /// when it declares one, else a dynamic type. Nil for an empty MIME type.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// The type a tag of `tagClass` names, conforming to `supertype` when given.
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard let found = Self.types(tag: tag, tagClass: tagClass, conformingTo: supertype).first else { return nil }
        self = found
    }

    /// Every type a tag names that conforms to `supertype`, the system's first; a
    /// dynamic type when none does.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        guard !tag.isEmpty, !tag.contains("\0"), tagClass != .filenameExtension || !tag.contains("/") else { return [] }
        let key = tag.lowercased()
        let table = tagClass == .mimeType ? TypeIdentifiers.byMIMEType : TypeIdentifiers.byExtension
        var found: [UTType] = []
        if let declaration = table[key] {
            let type = UTType(identifier: declaration.identifier, kind: .declared)
            if supertype.map(type.conforms(to:)) ?? true { found.append(type) }
        }
        found += AppDeclaredTypes.shared.types(tag: key, tagClass: tagClass).filter { supertype.map($0.conforms(to:)) ?? true }
        if found.isEmpty { found.append(DynamicTypes.make(tag: tag, tagClass: tagClass, parent: supertype)) }
        return found
    }

    // MARK: What a type is

    var declaration: TypeIdentifiers.Declaration? {
        kind == .declared ? TypeIdentifiers.byIdentifier[identifier.lowercased()] : nil
    }

    /// The type's tags: its filename extensions and MIME types, the preferred first.
    public var tags: [UTTagClass: [String]] {
        guard let declaration else { return ownTags }
        var tags: [UTTagClass: [String]] = [:]
        if !declaration.extensions.isEmpty { tags[.filenameExtension] = declaration.extensions }
        if !declaration.mimeTypes.isEmpty { tags[.mimeType] = declaration.mimeTypes }
        return tags
    }

    /// The filename extension files of this type get (`jpeg` for ``jpeg``), if any.
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }
    /// The MIME type of this type's data (`image/jpeg` for ``jpeg``), if any.
    public var preferredMIMEType: String? { tags[.mimeType]?.first }
    /// A description of the type for people (in English here).
    public var localizedDescription: String? { declaration?.description }
    /// True for a type made for a tag the system does not know.
    public var isDynamic: Bool { kind == .dynamic }
    /// True for a type the system or this app declares (not a dynamic one).
    public var isDeclared: Bool { kind != .dynamic }
    /// True for the system's public types (identifiers starting `public.`).
    public var isPublic: Bool { kind == .declared && identifier.lowercased().hasPrefix("public.") }

    /// Every type this one conforms to, not itself.
    public var supertypes: Set<UTType> {
        var result: Set<UTType> = []
        var frontier = directParents
        var seen: Set<String> = []
        while let next = frontier.popLast() {
            guard seen.insert(next.identifier.lowercased()).inserted else { continue }
            result.insert(next)
            frontier += next.directParents
        }
        return result
    }

    var directParents: [UTType] {
        let parents = declaration?.parents ?? ownParents
        return parents.compactMap { UTType($0) }
    }

    /// Whether this type is `type` or descends from it.
    public func conforms(to type: UTType) -> Bool {
        if self == type || type.identifier.lowercased() == "public.item" { return true }
        return supertypes.contains(type)
    }

    /// Whether `type` conforms to this one, and is not it.
    public func isSupertype(of type: UTType) -> Bool { self != type && type.conforms(to: self) }
    /// Whether this type conforms to `type`, and is not it.
    public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }

    public var description: String { identifier }
    public var debugDescription: String { "<UTType \(identifier)>" }

    public static func == (lhs: UTType, rhs: UTType) -> Bool {
        lhs.identifier.lowercased() == rhs.identifier.lowercased()
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(identifier.lowercased()) }

    // MARK: Codable: the identifier, as Apple encodes it

    public init(from decoder: any Decoder) throws {
        let identifier = try decoder.singleValueContainer().decode(String.self)
        guard let type = UTType(identifier) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "\"\(identifier.prefix(200))\" is not a type the system or this app declares"))
        }
        self = type
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}
#endif
