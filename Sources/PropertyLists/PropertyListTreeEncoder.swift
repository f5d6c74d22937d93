import Foundation

/// Encodes `Encodable` values to a ``PropertyListTree``, in the shape Foundation's
/// `PropertyListEncoder` gives them (keyed containers become dictionaries, unkeyed
/// ones arrays, `Date` and `Data` their own types, `nil` the string `"$null"`), so
/// files written either way decode either way. Unlike going through
/// `PropertyListEncoder`'s bytes, strings keep their exact spelling: two accounts
/// that differ only in Unicode normalization stay two strings.
package struct PropertyListTreeEncoder {
    package init() {}

    /// The tree of `value`.
    /// - Throws: `EncodingError.invalidValue` when `value` encodes nothing.
    package func encode<Value: Encodable>(_ value: Value) throws -> PropertyListTree {
        try TreeNode.box(value, codingPath: []).tree()
    }
}

/// A value under construction: containers are shared by reference while their
/// encoder fills them.
private final class TreeNode {
    enum Content {
        case empty
        case scalar(PropertyListTree)
        case dictionary([(key: String, node: TreeNode)])
        case array([TreeNode])
    }

    var content: Content = .empty

    init() {}
    init(_ scalar: PropertyListTree) { content = .scalar(scalar) }

    /// The node of `value`: dates and data as themselves, anything else through its `encode(to:)`.
    static func box<Value: Encodable>(_ value: Value, codingPath: [CodingKey]) throws -> TreeNode {
        if let date = value as? Date { return TreeNode(.date(date.timeIntervalSinceReferenceDate)) }
        if let data = value as? Data { return TreeNode(.data(data)) }
        let encoder = TreeEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        return encoder.node
    }

    func tree() throws -> PropertyListTree {
        switch content {
        // Foundation encodes a value that wrote nothing as an empty dictionary too.
        case .empty: return .dictionary(PropertyListDictionary())
        case .scalar(let value): return value
        case .array(let nodes): return .array(try nodes.map { try $0.tree() })
        case .dictionary(let entries):
            var dictionary = PropertyListDictionary()
            for entry in entries { dictionary.set(try entry.node.tree(), forKey: entry.key) }
            return .dictionary(dictionary)
        }
    }

    func append(key: String, _ node: TreeNode) {
        if case .dictionary(var entries) = content {
            content = .empty // release the array's buffer so the append does not copy it
            entries.append((key, node))
            content = .dictionary(entries)
        } else {
            content = .dictionary([(key, node)])
        }
    }

    func append(_ node: TreeNode) {
        if case .array(var nodes) = content {
            content = .empty
            nodes.append(node)
            content = .array(nodes)
        } else {
            content = .array([node])
        }
    }

    var arrayCount: Int {
        if case .array(let nodes) = content { return nodes.count }
        return 0
    }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String
    init(_ index: Int) { intValue = index; stringValue = "Index \(index)" }
    init?(intValue: Int) { self.init(intValue) }
    init?(stringValue: String) { return nil }
}

private final class TreeEncoder: Encoder {
    let codingPath: [CodingKey]
    let userInfo: [CodingUserInfoKey: Any] = [:]
    let node = TreeNode()

    init(codingPath: [CodingKey]) { self.codingPath = codingPath }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = node.content { node.content = .dictionary([]) }
        return KeyedEncodingContainer(KeyedTreeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if case .empty = node.content { node.content = .array([]) }
        return UnkeyedTreeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer { SingleTreeContainer(node: node, codingPath: codingPath) }
}

/// The scalar encodings shared by the three container kinds.
private protocol ScalarBoxing {}
extension ScalarBoxing {
    func scalar(_ value: Bool) -> TreeNode { TreeNode(.bool(value)) }
    func scalar(_ value: String) -> TreeNode { TreeNode(.string(value)) }
    func scalar(_ value: Double) -> TreeNode { TreeNode(.real(value)) }
    func scalar(_ value: Float) -> TreeNode { TreeNode(.real(Double(value))) }
    func scalar<T: BinaryInteger>(_ value: T) -> TreeNode {
        if let signed = Int64(exactly: value) { return TreeNode(.integer(.signed(signed))) }
        return TreeNode(.integer(PropertyListInteger(UInt64(truncatingIfNeeded: value))))
    }
    // Foundation's property-list encoder writes nil as this string.
    func null() -> TreeNode { TreeNode(.string("$null")) }
}

private struct KeyedTreeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, ScalarBoxing {
    let node: TreeNode
    let codingPath: [CodingKey]

    func encodeNil(forKey key: Key) throws { node.append(key: key.stringValue, null()) }
    func encode(_ value: Bool, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: String, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: Double, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: Float, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: Int, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: Int8, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: Int16, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: Int32, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: Int64, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: UInt, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: UInt8, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: UInt16, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: UInt32, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode(_ value: UInt64, forKey key: Key) throws { node.append(key: key.stringValue, scalar(value)) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.append(key: key.stringValue, try TreeNode.box(value, codingPath: codingPath + [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = TreeNode()
        child.content = .dictionary([])
        node.append(key: key.stringValue, child)
        return KeyedEncodingContainer(KeyedTreeContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        let child = TreeNode()
        child.content = .array([])
        node.append(key: key.stringValue, child)
        return UnkeyedTreeContainer(node: child, codingPath: codingPath + [key])
    }

    func superEncoder() -> Encoder { superEncoder(key: "super") }
    func superEncoder(forKey key: Key) -> Encoder { superEncoder(key: key.stringValue) }

    private func superEncoder(key: String) -> Encoder {
        let encoder = TreeEncoder(codingPath: codingPath)
        node.append(key: key, encoder.node)
        return encoder
    }
}

private struct UnkeyedTreeContainer: UnkeyedEncodingContainer, ScalarBoxing {
    let node: TreeNode
    let codingPath: [CodingKey]
    var count: Int { node.arrayCount }

    func encodeNil() throws { node.append(null()) }
    func encode(_ value: Bool) throws { node.append(scalar(value)) }
    func encode(_ value: String) throws { node.append(scalar(value)) }
    func encode(_ value: Double) throws { node.append(scalar(value)) }
    func encode(_ value: Float) throws { node.append(scalar(value)) }
    func encode(_ value: Int) throws { node.append(scalar(value)) }
    func encode(_ value: Int8) throws { node.append(scalar(value)) }
    func encode(_ value: Int16) throws { node.append(scalar(value)) }
    func encode(_ value: Int32) throws { node.append(scalar(value)) }
    func encode(_ value: Int64) throws { node.append(scalar(value)) }
    func encode(_ value: UInt) throws { node.append(scalar(value)) }
    func encode(_ value: UInt8) throws { node.append(scalar(value)) }
    func encode(_ value: UInt16) throws { node.append(scalar(value)) }
    func encode(_ value: UInt32) throws { node.append(scalar(value)) }
    func encode(_ value: UInt64) throws { node.append(scalar(value)) }
    func encode<T: Encodable>(_ value: T) throws {
        node.append(try TreeNode.box(value, codingPath: codingPath + [IndexKey(count)]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = TreeNode()
        child.content = .dictionary([])
        let path = codingPath + [IndexKey(count)]
        node.append(child)
        return KeyedEncodingContainer(KeyedTreeContainer<NestedKey>(node: child, codingPath: path))
    }

    func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        let child = TreeNode()
        child.content = .array([])
        let path = codingPath + [IndexKey(count)]
        node.append(child)
        return UnkeyedTreeContainer(node: child, codingPath: path)
    }

    func superEncoder() -> Encoder {
        let encoder = TreeEncoder(codingPath: codingPath + [IndexKey(count)])
        node.append(encoder.node)
        return encoder
    }
}

private struct SingleTreeContainer: SingleValueEncodingContainer, ScalarBoxing {
    let node: TreeNode
    let codingPath: [CodingKey]

    private func set(_ value: TreeNode) { node.content = value.content }

    func encodeNil() throws { set(null()) }
    func encode(_ value: Bool) throws { set(scalar(value)) }
    func encode(_ value: String) throws { set(scalar(value)) }
    func encode(_ value: Double) throws { set(scalar(value)) }
    func encode(_ value: Float) throws { set(scalar(value)) }
    func encode(_ value: Int) throws { set(scalar(value)) }
    func encode(_ value: Int8) throws { set(scalar(value)) }
    func encode(_ value: Int16) throws { set(scalar(value)) }
    func encode(_ value: Int32) throws { set(scalar(value)) }
    func encode(_ value: Int64) throws { set(scalar(value)) }
    func encode(_ value: UInt) throws { set(scalar(value)) }
    func encode(_ value: UInt8) throws { set(scalar(value)) }
    func encode(_ value: UInt16) throws { set(scalar(value)) }
    func encode(_ value: UInt32) throws { set(scalar(value)) }
    func encode(_ value: UInt64) throws { set(scalar(value)) }
    func encode<T: Encodable>(_ value: T) throws { set(try TreeNode.box(value, codingPath: codingPath)) }
}
