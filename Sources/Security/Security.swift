// The module `import Security` resolves to on Linux, where Apple's Security
// framework does not exist: it re-exports SharedKeychain, whose Keychain Services
// vocabulary (SecItemAdd, kSecClass..., OSStatus, CFDictionary) runs against the
// emulated keychain. Package.swift declares this target on Linux only, so on
// Apple's platforms `import Security` still finds Apple's framework.
@_exported import SharedKeychain
