import Foundation
#if !canImport(Darwin)
import class SharedDefaults.UserDefaults
#endif
import ProbeSupport

// Commands that go through UserDefaults exactly as iOS code does (the emulator's,
// picked by the scoped import above), with the identity from the environment.

/// `--suite S` is `UserDefaults(suiteName: S)!`, `--standard` is `UserDefaults.standard`.
func userDefaultsFromOptions() -> UserDefaults {
    if optionalOption("standard") != nil {
        // One object per target, as iOS's singleton.
        guard UserDefaults.standard === UserDefaults.standard else { fail("UserDefaults.standard gave two objects") }
        return UserDefaults.standard
    }
    guard let defaults = UserDefaults(suiteName: option("suite")) else { fail("UserDefaults(suiteName:) returned nil") }
    return defaults
}

/// ud-set: stores a string, then fails if the suite reported an error.
func userDefaultsSet() {
    let defaults = userDefaultsFromOptions()
    defaults.set(option("value"), forKey: option("key"))
    #if !canImport(Darwin)
    if let error = defaults.lastError { fail("\(error)") }  // the emulator's; Apple's UserDefaults has none
    #endif
    say("done")
}

/// ud-get: prints the string stored, or "nil".
func userDefaultsGet() {
    say(userDefaultsFromOptions().string(forKey: option("key")) ?? "nil")
}
