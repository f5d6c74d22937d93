// The module `import LocalAuthentication` resolves to on Linux (declared there
// only, see Package.swift). It declares Apple's names only (LAContext, LAPolicy,
// LAError...); LAContext runs against the simulated device's biometric sensor,
// SharedKeychain's, so that code written for iOS compiles with its import lines
// unchanged and its own types never collide with the package's (see Security.swift).
@_exported import Foundation
