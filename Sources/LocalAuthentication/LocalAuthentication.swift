// The module `import LocalAuthentication` resolves to on Linux (declared there
// only, see Package.swift). It exposes Apple's names only (LAContext, LAPolicy,
// LAError...), each re-exported from SharedKeychain, whose LAContext runs against
// the simulated device's biometric sensor, so that code written for iOS compiles
// with its import lines unchanged and its own types never collide with the
// package's (see Security.swift).
@_exported import Foundation
@_exported import enum SharedKeychain.LABiometryType
@_exported import class SharedKeychain.LAContext
@_exported import struct SharedKeychain.LAError
@_exported import let SharedKeychain.LAErrorDomain
@_exported import enum SharedKeychain.LAPolicy
@_exported import let SharedKeychain.LATouchIDAuthenticationMaximumAllowableReuseDuration

#if !canImport(Darwin)
/// `catch LAError.userCancel { }`, as iOS code writes it: on Apple's platforms
/// Foundation matches an error code against an error; here the code's own match
/// (declared with LAError in SharedKeychain) travels with this module's names.
public func ~= (code: LAError.Code, error: any Error) -> Bool {
    (error as? LAError)?.code == code
}
#endif
