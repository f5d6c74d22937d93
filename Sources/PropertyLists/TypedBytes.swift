import Foundation

extension Data {
    /// `withUnsafeBytes` for a body that throws ``PropertyListError``: Foundation's
    /// form rethrows an untyped error, so the outcome is carried out as a value.
    @inline(__always)
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> T) throws(PropertyListError) -> T {
        try withUnsafeBytes { raw in Result { () throws(PropertyListError) -> T in try body(raw) } }.get()
    }
}

extension String {
    /// `withUTF8` for a body that throws ``PropertyListError`` (see `Data.withBytes`).
    @inline(__always)
    mutating func withUTF8Bytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws(PropertyListError) -> T) throws(PropertyListError) -> T {
        try withUTF8 { utf8 in Result { () throws(PropertyListError) -> T in try body(utf8) } }.get()
    }
}
