import AppGroupContainer
import Foundation

extension SharedDefaults {
    /// Stores a Codable value as a property-list structure (a dictionary, an array
    /// or a scalar, readable by any plist reader), through `PropertyListEncoder`.
    /// - Throws: ``SharedDefaultsError/codingFailed(key:type:problem:)`` when the value
    ///   cannot be encoded, and as ``save(_:forKey:)``. Nothing is written then.
    public func set<Value: Encodable>(codable value: Value, forKey defaultName: String) throws {
        try save(try Self.propertyList(from: value, key: defaultName), forKey: defaultName)
    }

    /// Decodes the value for `key` with `PropertyListDecoder`; nil when the key is
    /// missing. Accepts what ``set(codable:forKey:)`` stores and also `Data` holding an
    /// encoded property list (what `set(try PropertyListEncoder().encode(x), forKey:)` stores).
    /// - Throws: ``SharedDefaultsError/codingFailed(key:type:problem:)`` when the stored
    ///   value does not decode as `type`; as ``load(forKey:)`` for the file.
    public func value<Value: Decodable>(_ type: Value.Type, forKey defaultName: String) throws -> Value? {
        guard let stored = try load(forKey: defaultName) else { return nil }
        return try Self.decode(type, from: stored, key: defaultName)
    }

    // PropertyListEncoder refuses top-level scalars ("fragments"), so values travel
    // wrapped in a one-element array.
    static func propertyList<Value: Encodable>(from value: Value, key: String) throws -> Any {
        do {
            let data = try PropertyListEncoder().encode([value])
            guard let array = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [Any],
                  let first = array.first else {
                throw SharedDefaultsError.codingFailed(key: key, type: "\(Value.self)", problem: "the encoder produced no value")
            }
            return first
        } catch let error as SharedDefaultsError {
            throw error
        } catch {
            throw SharedDefaultsError.codingFailed(key: key, type: "\(Value.self)", problem: "\(error)")
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from stored: Any, key: String) throws -> Value {
        do {
            // Stored data may be an encoded value; screened first, as any other process may have written it.
            if let data = stored as? Data, PropertyListScreen.problem(in: data) == nil,
               let direct = try? PropertyListDecoder().decode(Value.self, from: data) {
                return direct
            }
            let wrapped = try PropertyListSerialization.data(fromPropertyList: [stored], format: .binary, options: 0)
            guard let first = try PropertyListDecoder().decode([Value].self, from: wrapped).first else {
                throw SharedDefaultsError.codingFailed(key: key, type: "\(Value.self)", problem: "nothing to decode")
            }
            return first
        } catch let error as SharedDefaultsError {
            throw error
        } catch {
            throw SharedDefaultsError.codingFailed(key: key, type: "\(Value.self)", problem: "\(error)")
        }
    }
}
