#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// The domain of the errors an ``NSItemProvider`` completes with, as Apple's.
public let NSItemProviderErrorDomain: String = "NSItemProviderErrorDomain"

extension NSItemProvider {
    /// Apple's error codes of `NSItemProviderErrorDomain`, with Apple's values.
    public enum ErrorCode: Int, Sendable {
        case unknownError = -1
        /// The provider has no representation of the type asked for.
        case itemUnavailableError = -1000
        /// The item is not of the class asked for.
        case unexpectedValueClassError = -1100
        /// The item cannot be turned into the representation asked for.
        case unavailableCoercionError = -1200
    }

    static func error(_ code: ErrorCode, _ description: String) -> NSError {
        NSError(domain: NSItemProviderErrorDomain, code: code.rawValue,
                userInfo: [NSLocalizedDescriptionKey: description])
    }

    /// Apple's answer for a type the provider does not have.
    static func unavailable(_ typeIdentifier: String, registered: [String]) -> NSError {
        error(.itemUnavailableError, "Cannot load representation of type \(typeIdentifier) (the item provider has \(registered.isEmpty ? "no types" : registered.joined(separator: ", ")); test with hasItemConformingToTypeIdentifier first)")
    }
}
#endif
