import Foundation

/// Decodes `Decodable` values from a ``PropertyListTree`` read by this package's
/// codec, reading what Foundation's `PropertyListEncoder` and
/// ``PropertyListTreeEncoder`` write. Keys are looked up by their exact spelling.
/// Numbers convert only where the value is exact (an integer read as `Double`, a
/// whole real as `Int`); anything else is a `DecodingError` naming the coding path.
package struct PropertyListTreeDecoder {
    package init() {}

    /// The `Value` `tree` holds.
    /// - Throws: `DecodingError` saying what was expected, what was found, and where.
    package func decode<Value: Decodable>(_ type: Value.Type, from tree: PropertyListTree) throws -> Value {
        try TreeDecoder(tree, codingPath: []).unbox(Value.self)
    }
}

private struct TreeKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(_ index: Int) { stringValue = "Index \(index)"; intValue = index }
    init(string: String) { stringValue = string; intValue = nil }
    init?(stringValue: String) { self.init(string: stringValue) }
    init?(intValue: Int) { self.init(intValue) }
}

private struct TreeDecoder: Decoder {
    let tree: PropertyListTree
    let codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ tree: PropertyListTree, codingPath: [CodingKey]) {
        self.tree = tree
        self.codingPath = codingPath
    }

    func mismatch(_ expected: Any.Type) -> DecodingError {
        .typeMismatch(expected, DecodingError.Context(codingPath: codingPath,
            debugDescription: "expected \(expected), found a \(tree.kind) in the property list"))
    }

    /// Dates and data are their own property-list types; the rest decode themselves.
    func unbox<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if Value.self == Date.self {
            guard case .date(let seconds) = tree else { throw mismatch(Date.self) }
            if let date = Date(timeIntervalSinceReferenceDate: seconds) as? Value { return date }
        }
        if Value.self == Data.self {
            guard case .data(let data) = tree else { throw mismatch(Data.self) }
            if let data = data as? Value { return data }
        }
        return try Value(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let dictionary) = tree else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(KeyedTreeDecoding<Key>(dictionary: dictionary, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard case .array(let items) = tree else { throw mismatch([Any].self) }
        return UnkeyedTreeDecoding(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer { SingleTreeDecoding(decoder: self) }

    // MARK: scalars

    var isNull: Bool {
        if case .string(let s) = tree, s == "$null" { return true }
        return false
    }

    func bool() throws -> Bool {
        guard case .bool(let value) = tree else { throw mismatch(Bool.self) }
        return value
    }

    func string() throws -> String {
        guard case .string(let value) = tree else { throw mismatch(String.self) }
        return value
    }

    func real() throws -> Double {
        switch tree {
        case .real(let value): return value
        case .integer(.signed(let value)): if let exact = Double(exactly: value) { return exact }
        case .integer(.unsigned(let value)): if let exact = Double(exactly: value) { return exact }
        default: break
        }
        throw mismatch(Double.self)
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let converted: T?
        switch tree {
        case .integer(.signed(let value)): converted = T(exactly: value)
        case .integer(.unsigned(let value)): converted = T(exactly: value)
        case .real(let value): converted = value.isFinite ? T(exactly: value) : nil
        default: throw mismatch(T.self)
        }
        guard let converted else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath,
                debugDescription: "the number in the property list does not fit in \(T.self)"))
        }
        return converted
    }
}

private struct KeyedTreeDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let dictionary: PropertyListDictionary
    let codingPath: [CodingKey]

    var allKeys: [Key] { dictionary.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { dictionary[key.stringValue] != nil }

    private func child(_ key: Key) throws -> TreeDecoder {
        guard let value = dictionary[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath,
                debugDescription: "the property list has no key \"\(key.stringValue)\""))
        }
        return TreeDecoder(value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).bool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).real() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try child(key).real()) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).integer(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).unbox(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer { try child(key).unkeyedContainer() }

    func superDecoder() throws -> Decoder { try child(TreeKey(string: "super")) }
    func superDecoder(forKey key: Key) throws -> Decoder { try child(key) }

    private func child(_ key: TreeKey) throws -> TreeDecoder {
        TreeDecoder(dictionary[key.stringValue] ?? .dictionary(PropertyListDictionary()), codingPath: codingPath + [key])
    }
}

private struct UnkeyedTreeDecoding: UnkeyedDecodingContainer {
    let items: [PropertyListTree]
    let codingPath: [CodingKey]
    var currentIndex = 0

    init(items: [PropertyListTree], codingPath: [CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next() throws -> TreeDecoder {
        let key = TreeKey(currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, DecodingError.Context(codingPath: codingPath + [key],
                debugDescription: "the property list's array has only \(items.count) elements"))
        }
        currentIndex += 1
        return TreeDecoder(items[currentIndex - 1], codingPath: codingPath + [key])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, TreeDecoder(items[currentIndex], codingPath: codingPath).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().bool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().string() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().real() }
    mutating func decode(_ type: Float.Type) throws -> Float { Float(try next().real()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().integer(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().unbox(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> Decoder { try next() }
}

private struct SingleTreeDecoding: SingleValueDecodingContainer {
    let decoder: TreeDecoder
    var codingPath: [CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool() }
    func decode(_ type: String.Type) throws -> String { try decoder.string() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.real() }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.real()) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.unbox(type) }
}
