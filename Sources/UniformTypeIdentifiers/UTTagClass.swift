#if !canImport(Darwin)
import Foundation

/// A kind of tag a type carries: a filename extension or a MIME type.
public struct UTTagClass: Hashable, RawRepresentable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Filename extensions (`public.filename-extension`).
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
    /// MIME types (`public.mime-type`).
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")

    public var description: String { rawValue }
}
#endif
