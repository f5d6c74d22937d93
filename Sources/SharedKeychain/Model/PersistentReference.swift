import Foundation

/// A persistent reference to a keychain item (`kSecReturnPersistentRef`,
/// `kSecValuePersistentRef`), as opaque to callers as Apple's: here 20 bytes, the
/// item's class code (`genp`, `inet`, `cert`, `keys`, `idnt`) then a 16-byte random
/// identifier given to the item when it is added. The identifier never changes:
/// not by an update, not by a move to another access group, not in another process
/// (it is stored with the item), so a reference stays valid until the item is
/// deleted, as on iOS. A reference from another device names no item of this one
/// (the identifiers are random), so it finds nothing rather than another item.
struct PersistentReference: Hashable {
    static let identifierLength = 16
    static let length = 4 + identifierLength

    let itemClass: ItemClass
    let identifier: Data

    /// A new, random identifier for an item being added.
    static func newIdentifier() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<identifierLength).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    init(itemClass: ItemClass, identifier: Data) {
        self.itemClass = itemClass
        self.identifier = identifier
    }

    /// Reads a reference a caller passed; -50 for anything not shaped like one.
    init(_ value: Any, operation: Operation) throws {
        let problem = "kSecValuePersistentRef"
        guard let data = value as? Data else {
            throw KeychainError.invalidParameter(operation: operation.rawValue,
                problem: "\(problem) must be the Data that kSecReturnPersistentRef returned, not a \(ParsedQuery.typeName(value))")
        }
        let bytes = [UInt8](data)
        guard bytes.count == Self.length, let code = String(bytes: bytes.prefix(4), encoding: .ascii),
              let itemClass = ItemClass(rawValue: code) else {
            throw KeychainError.invalidParameter(operation: operation.rawValue,
                problem: "\(problem) is not a persistent reference (\(bytes.count) bytes that kSecReturnPersistentRef did not make); pass the Data a SecItemAdd or SecItemCopyMatching with kSecReturnPersistentRef returned, unchanged")
        }
        self.itemClass = itemClass
        identifier = Data(bytes.suffix(Self.identifierLength))
    }

    /// The reference's bytes.
    var data: Data { Data(itemClass.rawValue.utf8) + identifier }
}
