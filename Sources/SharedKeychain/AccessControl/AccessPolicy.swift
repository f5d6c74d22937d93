import Foundation

/// What an item's `kSecAttrAccessControl` demands, as the engine stores it with the
/// item: the constraints of `SecAccessControlCreateFlags`, how they combine, and (for
/// `.biometryCurrentSet`) the enrolment the item was bound to when it was added.
/// Platform-neutral: the public `SecAccessControl` wraps one of these.
package struct AccessPolicy: Codable, Sendable, Hashable {
    /// One constraint flag.
    package enum Constraint: String, Codable, Sendable, Hashable, CaseIterable {
        /// Biometry or the passcode (`.userPresence`).
        case userPresence
        /// Any enrolled finger or face (`.biometryAny`).
        case biometryAny
        /// The fingers or face enrolled when the item was added (`.biometryCurrentSet`).
        case biometryCurrentSet
        /// The device passcode (`.devicePasscode`).
        case devicePasscode

        /// The flag's bit (SecAccessControl.h).
        var bit: UInt {
            switch self {
            case .userPresence: return 1 << 0
            case .biometryAny: return 1 << 1
            case .biometryCurrentSet: return 1 << 3
            case .devicePasscode: return 1 << 4
            }
        }

        var usesBiometry: Bool { self != .devicePasscode }
        var usesPasscode: Bool { self == .userPresence || self == .devicePasscode }
    }

    /// The logical operators and the flags this emulator refuses as not emulated.
    static let orBit: UInt = 1 << 14
    static let andBit: UInt = 1 << 15
    static let watchBit: UInt = 1 << 5
    static let privateKeyUsageBit: UInt = 1 << 30
    static let applicationPasswordBit: UInt = 1 << 31

    /// The flags exactly as given to `SecAccessControlCreateWithFlags`.
    package var flags: UInt
    /// The data protection class given with them.
    package var protection: Accessibility
    var constraints: [Constraint]
    /// True: every constraint must hold (`.and`, and the choice for several constraints without an operator).
    var requiresAll: Bool
    /// The enrolment generation a `.biometryCurrentSet` item was bound to when added; nil before.
    package var boundEnrollment: Int?

    /// Validates `flags` as `SecAccessControlCreateWithFlags` does.
    /// - Throws: `errSecParam` for an unknown bit, both `.or` and `.and`, an operator
    ///   without a constraint, or a deprecated `Always` protection; `errSecUnimplemented`
    ///   for `.privateKeyUsage`, `.applicationPassword` and the companion/watch flag.
    package init(flags: UInt, protection: Accessibility) throws {
        let operation = "SecAccessControlCreateWithFlags"
        func refuse(_ problem: String) -> KeychainError { .invalidParameter(operation: operation, problem: problem) }
        if flags & Self.privateKeyUsageBit != 0 {
            throw KeychainError.unimplemented(feature: ".privateKeyUsage (it protects Secure Enclave keys; keys are out of this emulator's scope)")
        }
        if flags & Self.applicationPasswordBit != 0 {
            throw KeychainError.unimplemented(feature: ".applicationPassword (an app-supplied password through LAContext.setCredential)")
        }
        if flags & Self.watchBit != 0 {
            throw KeychainError.unimplemented(feature: ".companion / .watch (a paired device; the simulated device has none)")
        }
        let known = Constraint.allCases.reduce(Self.orBit | Self.andBit) { $0 | $1.bit }
        if flags & ~known != 0 {
            throw refuse("flags 0x\(String(flags, radix: 16)) hold bits that are not SecAccessControlCreateFlags members (0x\(String(flags & ~known, radix: 16))); combine the named members only")
        }
        let isOr = flags & Self.orBit != 0, isAnd = flags & Self.andBit != 0
        if isOr && isAnd { throw refuse("flags hold both .or and .and; one access control combines its constraints one way only") }
        let constraints = Constraint.allCases.filter { flags & $0.bit != 0 }
        if constraints.isEmpty && (isOr || isAnd) {
            throw refuse("\(isOr ? ".or" : ".and") needs constraints to combine (.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode)")
        }
        if protection.isDeprecated {
            throw refuse("\(protection) cannot protect an access-controlled item; use kSecAttrAccessibleWhenUnlockedThisDeviceOnly or kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly")
        }
        self.flags = flags
        self.protection = protection
        self.constraints = constraints
        requiresAll = !isOr
    }

    /// The requirement of an `LAPolicy` (no item, so no protection class of its own).
    package init(requiring constraint: Constraint) {
        flags = constraint.bit
        protection = .whenUnlockedThisDeviceOnly
        constraints = [constraint]
        requiresAll = true
    }

    var usesBiometry: Bool { constraints.contains { $0.usesBiometry } }
    var usesPasscode: Bool { constraints.contains { $0.usesPasscode } }
    /// True when reading the item's data needs the user (no constraint: only the protection class applies).
    var needsAuthentication: Bool { !constraints.isEmpty }

    /// Whether `factors` (what the user has proved) satisfy the policy.
    func isSatisfied(by factors: AuthenticationFactors) -> Bool {
        guard needsAuthentication else { return true }
        let results = constraints.map { constraint -> Bool in
            switch constraint {
            case .userPresence: return factors.biometryEnrollment != nil || factors.passcode
            case .biometryAny: return factors.biometryEnrollment != nil
            case .biometryCurrentSet: return factors.biometryEnrollment != nil && factors.biometryEnrollment == boundEnrollment
            case .devicePasscode: return factors.passcode
            }
        }
        return requiresAll ? results.allSatisfy { $0 } : results.contains(true)
    }

    /// True when no authentication can ever open the item again: it was bound to an
    /// enrolment that has since changed (`.biometryCurrentSet`), and nothing else it accepts remains.
    func isInvalidated(currentEnrollment: Int) -> Bool {
        !isSatisfied(by: AuthenticationFactors(biometryEnrollment: currentEnrollment, passcode: true))
    }

    /// The Swift spelling of the flags, for messages.
    package var flagNames: String {
        var names = constraints.map { "." + $0.rawValue }
        if flags & Self.orBit != 0 { names.append(".or") }
        if flags & Self.andBit != 0 { names.append(".and") }
        return "[" + names.joined(separator: ", ") + "]"
    }
}

/// What the user has proved in one authentication (or in an earlier one an
/// `LAContext` keeps): a biometric match against an enrolment, the passcode.
package struct AuthenticationFactors: Sendable, Hashable, Codable {
    /// The enrolment generation a biometric match was made against; nil for no match.
    package var biometryEnrollment: Int?
    var passcode = false
}
