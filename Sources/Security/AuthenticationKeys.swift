import Foundation
import SharedKeychain

// The keys and codes of protected items: access control, the authentication
// context and whether a call may prompt.

#if !canImport(Darwin)
/// An item's access control: a `SecAccessControl` from `SecAccessControlCreateWithFlags`.
/// Add only; it replaces `kSecAttrAccessible` (giving both is errSecParam).
public let kSecAttrAccessControl: CFString = RawKey.accessControl
/// The `LAContext` a call authenticates with, and reuses once it has authenticated.
public let kSecUseAuthenticationContext: CFString = RawKey.useAuthenticationContext
/// Whether a call may prompt: `kSecUseAuthenticationUIAllow` (the default), `...Fail`, `...Skip`.
public let kSecUseAuthenticationUI: CFString = RawKey.useAuthenticationUI
/// Prompt when an item needs it (the default).
public let kSecUseAuthenticationUIAllow: CFString = RawKey.useAuthenticationUIAllow
/// Never prompt: an item that needs authentication is errSecInteractionNotAllowed (-25308).
public let kSecUseAuthenticationUIFail: CFString = RawKey.useAuthenticationUIFail
/// Never prompt: items that need authentication are skipped (SecItemCopyMatching only).
public let kSecUseAuthenticationUISkip: CFString = RawKey.useAuthenticationUISkip
/// The prompt's text for an item that needs authentication (deprecated by Apple
/// for `LAContext.localizedReason`; accepted and shown nowhere here).
public let kSecUseOperationPrompt: CFString = RawKey.useOperationPrompt
/// `errSecAuthFailed` (-25293).
public let errSecAuthFailed: OSStatus = SecStatus.authFailed
#endif
