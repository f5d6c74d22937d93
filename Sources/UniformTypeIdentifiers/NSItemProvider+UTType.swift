#if !canImport(Darwin)
import Foundation
import AppGroupFoundation

/// The forms of `NSItemProvider`'s calls that take a `UTType`, which Apple's
/// UniformTypeIdentifiers framework adds to it: each does what the form taking
/// the type's identifier does.
extension NSItemProvider {
    /// The registered types, in the order they were registered.
    public var registeredContentTypes: [UTType] {
        registeredTypeIdentifiers.map { UTType($0) ?? UTType(identifier: $0, kind: .imported) }
    }

    /// The registered types that conform to `contentType`.
    public func registeredContentTypes(conformingTo contentType: UTType) -> [UTType] {
        registeredContentTypes.filter { $0.conforms(to: contentType) }
    }

    /// Loads the bytes of the representation for `contentType` (see
    /// `loadDataRepresentation(forTypeIdentifier:completionHandler:)`).
    @discardableResult
    public func loadDataRepresentation(for contentType: UTType,
                                       completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress {
        loadDataRepresentation(forTypeIdentifier: contentType.identifier, completionHandler: completionHandler)
    }

    /// Loads the representation for `contentType` as a file (see
    /// `loadFileRepresentation(forTypeIdentifier:completionHandler:)`): always a
    /// temporary copy, so the handler's second argument (opened in place) is false.
    @discardableResult
    public func loadFileRepresentation(for contentType: UTType, openInPlace: Bool = false,
                                       completionHandler: @escaping @Sendable (URL?, Bool, (any Error)?) -> Void) -> Progress {
        loadFileRepresentation(forTypeIdentifier: contentType.identifier) { url, error in completionHandler(url, false, error) }
    }
}
#endif
