// The module `import Security` resolves to on Linux, where Apple's Security
// framework does not exist (Package.swift declares it on Linux only, so on Apple's
// platforms `import Security` still finds Apple's). It declares Apple's names only
// (Keychain Services: SecItemAdd, kSecClass..., OSStatus, SecAccessControl), on
// SharedKeychain's engine, whose own API (Keychain, KeychainError, Accessibility...)
// stays under `import SharedKeychain`: an app's own type of such a name is then never
// ambiguous with this package's. Tests/SecurityNamesTests checks that every public
// name declared here is Apple's.
//
// Apple's Security brings Core Foundation (CFDictionary, CFString, CFTypeRef...),
// whose names Linux's Foundation lacks and AppGroupFoundation declares: a file that
// builds a query needs them, so this module re-exports AppGroupFoundation (Apple's
// names only, and Foundation with them).
@_exported import AppGroupFoundation
