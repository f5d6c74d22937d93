// The module `import LocalAuthentication` resolves to on Linux (declared there
// only, see Package.swift). It re-exports SharedKeychain, whose LAContext, LAPolicy
// and LAError run against the simulated device's biometric sensor, so that code
// written for iOS compiles with its import lines unchanged.
@_exported import SharedKeychain
