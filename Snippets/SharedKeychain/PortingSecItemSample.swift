// The samples of the PortingSecItem and ProtectedItems articles, compiled by `swift build`.
import Foundation
import Security              // on Linux: this package's module, with Apple's names only
import LocalAuthentication   // the same, for LAContext

// snippet.hide
import SharedKeychain
let device = try KeychainDevice(root: URL(fileURLWithPath: "/tmp/device"))
// snippet.show
try device.scriptBiometry([.cancel, .match])        // what the user will do
let context = LAContext()                           // the device of Keychain.current()
context.localizedReason = "Unlock your vault"
// The app's SecItemCopyMatching with kSecUseAuthenticationContext: context
// answers errSecUserCanceled (-128), then the item; the context is then reused
// by later calls without a prompt, on this device, until context.invalidate()
// or until a lock, a passcode change, a lockout or a re-enrolment ends it.
