#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// A class an ``NSItemProvider`` can make an object of, as Apple's protocol:
/// `URL` and `String` conform, so that `canLoadObject(ofClass: URL.self)` and
/// `loadObject(ofClass: String.self) { text, error in ... }` read as on iOS.
public protocol NSItemProviderReading: SendableMetatype {
    /// The types the class reads, best first.
    static var readableTypeIdentifiersForItemProvider: [String] { get }
    /// An object made from `data` of type `typeIdentifier`.
    static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> Self
}

extension URL: NSItemProviderReading {
    /// `public.url` (which `public.file-url` conforms to).
    public static var readableTypeIdentifiersForItemProvider: [String] { [TypeIdentifiers.url] }

    /// The URL whose absolute string `data` holds in UTF-8.
    public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> URL {
        guard let text = String(data: data, encoding: .utf8), let url = URL(string: text) else {
            throw NSItemProvider.error(.unavailableCoercionError, "The \(typeIdentifier) item is not a URL")
        }
        return url
    }
}

extension String: NSItemProviderReading {
    /// `public.plain-text` (and the types conforming to it), then `public.url`.
    public static var readableTypeIdentifiersForItemProvider: [String] { [TypeIdentifiers.plainText, TypeIdentifiers.url] }

    /// The text `data` holds in UTF-8.
    public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> String {
        guard let text = String(data: data, encoding: .utf8) else {
            throw NSItemProvider.error(.unavailableCoercionError, "The \(typeIdentifier) item is not UTF-8 text")
        }
        return text
    }
}
#endif
