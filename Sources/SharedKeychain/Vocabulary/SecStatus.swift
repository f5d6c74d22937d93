import Foundation

/// Status codes with Apple's values (SecBase.h) and Apple's messages, for the
/// engine on every platform.
package enum SecStatus {
    package static let success: Int32 = 0
    package static let unimplemented: Int32 = -4
    package static let io: Int32 = -36
    package static let param: Int32 = -50
    package static let userCanceled: Int32 = -128
    package static let notAvailable: Int32 = -25291
    package static let authFailed: Int32 = -25293
    package static let invalidKeychain: Int32 = -25295
    package static let duplicateItem: Int32 = -25299
    package static let itemNotFound: Int32 = -25300
    package static let noSuchAttribute: Int32 = -25303
    package static let interactionNotAllowed: Int32 = -25308
    package static let decode: Int32 = -26275
    package static let missingEntitlement: Int32 = -34018

    /// Apple's wording, as `SecCopyErrorMessageString` gives it.
    package static func message(_ status: Int32) -> String? {
        switch status {
        case success: return "No error."
        case unimplemented: return "Function or operation not implemented."
        case io: return "I/O error."
        case param: return "One or more parameters passed to a function were not valid."
        case userCanceled: return "User canceled the operation."
        case notAvailable: return "No keychain is available. You may need to restart your computer."
        case authFailed: return "The user name or passphrase you entered is not correct."
        case invalidKeychain: return "The specified keychain is not a valid keychain file."
        case duplicateItem: return "The specified item already exists in the keychain."
        case itemNotFound: return "The specified item could not be found in the keychain."
        case noSuchAttribute: return "The specified attribute does not exist."
        case interactionNotAllowed: return "User interaction is not allowed."
        case decode: return "Unable to decode the provided data."
        case missingEntitlement: return "A required entitlement isn't present."
        default: return nil
        }
    }
}
