import AppGroupContainer
import Foundation
import PropertyLists

extension SharedDefaults {
    /// Stores a Codable value as a property-list structure (a dictionary, an array
    /// or a scalar, readable by any plist reader), through `PropertyListEncoder`.
    /// - Throws: ``SharedDefaultsError/codingFailed(key:type:problem:)`` when the value
    ///   cannot be encoded, and as ``save(_:forKey:)``. Nothing is written then.
    public func set<Value: Encodable>(codable value: Value, forKey defaultName: String) throws {
        try SharedDefaultsError.passingUp(path: fileURL.path) { try save(stored: try Self.storedForm(of: value, key: defaultName), forKey: defaultName) }
    }

    /// Decodes the value for `key` with `PropertyListDecoder`; nil when the key is
    /// missing. Accepts what ``set(codable:forKey:)`` stores and also `Data` holding an
    /// encoded property list (what `set(try PropertyListEncoder().encode(x), forKey:)` stores).
    /// - Throws: ``SharedDefaultsError/codingFailed(key:type:problem:)`` when the stored
    ///   value does not decode as `type`; as ``load(forKey:)`` for the file.
    public func value<Value: Decodable>(_ type: Value.Type, forKey defaultName: String) throws -> Value? {
        try SharedDefaultsError.passingUp(path: fileURL.path) {
            if let stored = try store.currentValue(forKey: defaultName) {
                return try Self.decode(type, fromStored: stored, key: defaultName)
            }
            guard let registered = registeredValue(forKey: defaultName) else { return nil }
            return try Self.decode(type, from: registered, key: defaultName)
        }
    }

    // PropertyListEncoder refuses top-level scalars ("fragments"), so values travel
    // wrapped in a one-element array. The encoder's bytes are read back by the
    // package's own codec, which keeps them exactly.
    static func storedForm<Value: Encodable>(of value: Value, key: String) throws -> PropertyListTree {
        let failed = { (problem: String) in SharedDefaultsError.codingFailed(key: key, type: "\(Value.self)", problem: problem) }
        let data: Data
        do {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            data = try encoder.encode([value])
        } catch {
            throw failed("\(error)")
        }
        let tree: PropertyListTree
        do {
            tree = try PropertyListCodec.read(data)
        } catch {
            throw failed("the encoder's output cannot be read back: \(error)")
        }
        guard case .array(let items) = tree, let first = items.first else { throw failed("the encoder produced no value") }
        return first
    }

    /// Decodes a canonical value (a registered default) as `Value`.
    static func decode<Value: Decodable>(_ type: Value.Type, from value: Any, key: String) throws -> Value {
        try decode(type, fromStored: CanonicalTree.tree(PropertyListValue.normalize(value, key: key), key: key), key: key)
    }

    /// Decodes a stored value as `Value`. Foundation's decoder only ever sees bytes
    /// this package's codec has read (stored `Data` another process may have
    /// written included) or written: no set, cycle, or nesting beyond the codec's
    /// limit reaches it, so a hostile value gives an error, not a crash.
    static func decode<Value: Decodable>(_ type: Value.Type, fromStored stored: PropertyListTree, key: String) throws -> Value {
        let failed = { (problem: String) in SharedDefaultsError.codingFailed(key: key, type: "\(Value.self)", problem: problem) }
        if case .data(let data) = stored, let inner = try? PropertyListCodec.read(data),
           let direct = try? decodeChecked(Value.self, inner) {
            return direct
        }
        do {
            guard let first = try decodeChecked([Value].self, .array([stored])).first else { throw failed("nothing to decode") }
            return first
        } catch let error as SharedDefaultsError {
            throw error
        } catch {
            throw failed("\(error)")
        }
    }

    /// Hands `tree`, re-encoded by the package's writer, to `PropertyListDecoder`.
    private static func decodeChecked<Value: Decodable>(_ type: Value.Type, _ tree: PropertyListTree) throws -> Value {
        if let twin = TwinKeys.first(in: tree) {
            // Foundation's decoder would have to merge the two (or trap building a Swift dictionary).
            throw PropertyListError("a dictionary holding two keys that differ only in Unicode normalization (\"\(twin)\"), which Codable types cannot tell apart")
        }
        return try PropertyListDecoder().decode(Value.self, from: BinaryPropertyListWriter.write(tree))
    }
}
