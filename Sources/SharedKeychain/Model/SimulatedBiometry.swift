import Foundation

/// The simulated device's biometric sensor, shared by every process using the
/// device (`Devices/<name>.biometry.plist`, the device's own record, changed under
/// the device's lock; a sandboxed target only reads it): what hardware it has, whether a face or finger is enrolled, which enrolment
/// that is, how many matches failed in a row, and the outcomes of the next prompts.
///
/// Nothing waits for a human: each prompt (a biometric scan or a passcode entry)
/// consumes the next scripted ``Outcome``. A prompt with nothing scripted is answered
/// as a system cancel and reported on standard error.
public struct SimulatedBiometry: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The sensor hardware (`LABiometryType`).
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case none, touchID, faceID
    }

    /// What the user does at the next prompt.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// The face or finger matches; at a passcode prompt, the right passcode.
        case match
        /// The face or finger does not match (the fifth in a row locks biometry out);
        /// at a passcode prompt, a wrong passcode.
        case noMatch = "no-match"
        /// The user taps Cancel.
        case cancel
        /// The user taps the fallback button ("Enter Password").
        case fallback
        /// The system cancels the prompt (another app came forward, the screen locked).
        case systemCancel = "system-cancel"
    }

    /// What a prompt asked for.
    public enum PromptKind: String, Sendable, Hashable, Codable {
        case biometry, passcode
    }

    /// A prompt that was shown: what it asked for, the reason it gave, and how it was answered.
    public struct Prompt: Sendable, Hashable, Codable, CustomStringConvertible {
        public var kind: PromptKind
        /// The `localizedReason` shown.
        public var reason: String
        /// The scripted outcome consumed; nil when nothing was scripted (answered as a system cancel).
        public var outcome: Outcome?

        public var description: String { "\(kind) prompt \"\(reason)\": \(outcome?.rawValue ?? "unscripted")" }
    }

    /// Failed matches in a row that lock biometry out, as on iOS; a passcode entry unlocks it.
    public static let lockoutThreshold = 5
    /// How many shown prompts ``presentedPrompts`` keeps (the latest).
    public static let promptHistoryLimit = 100
    /// The most outcomes ``scriptedOutcomes`` may hold: far more than a test needs,
    /// and with ``promptHistoryLimit`` and ``reasonLimit`` the sensor's file stays
    /// well under the size the device reads back (beyond it the sensor is unreadable).
    public static let scriptedOutcomeLimit = 1000
    /// The most characters of a prompt's reason the history keeps (longer ones are
    /// cut, marked with "…"): an app's reason is one sentence.
    public static let reasonLimit = 1024

    public var kind: Kind
    /// A face or at least one finger is enrolled.
    public var isEnrolled: Bool
    /// Changes with every enrolment change (a new face, a finger added or removed):
    /// `.biometryCurrentSet` items bound to an earlier one are invalidated.
    public var enrollmentGeneration: Int
    /// Failed matches since the last success.
    public var failedMatches: Int
    /// What the next prompts will get, first first.
    public var scriptedOutcomes: [Outcome]
    /// The prompts shown, oldest first (at most ``promptHistoryLimit``).
    public var presentedPrompts: [Prompt]
    /// Biometric lockouts begun or ended so far: a match an `LAContext` proved before
    /// a lockout does not count after it, even once the passcode ended it.
    var lockoutCount = 0
    /// The life of this sensor's file: made at its first authentication and gone with
    /// an erase, so what a context proved before an erase never opens what comes after.
    var incarnation: String?

    /// A device in use: Face ID, enrolled, nothing scripted.
    public static let enrolledFaceID = SimulatedBiometry(kind: .faceID, isEnrolled: true)

    public init(kind: Kind, isEnrolled: Bool, enrollmentGeneration: Int = 1) {
        self.kind = kind
        self.isEnrolled = isEnrolled
        self.enrollmentGeneration = enrollmentGeneration
        failedMatches = 0
        scriptedOutcomes = []
        presentedPrompts = []
    }

    /// Biometry refuses to scan until a passcode is entered.
    public var isLockedOut: Bool { failedMatches >= Self.lockoutThreshold }

    /// Whether a biometric prompt can be shown (hardware, enrolment, no lockout; a passcode is needed too).
    func canScan(passcodeSet: Bool) -> Bool { kind != .none && isEnrolled && !isLockedOut && passcodeSet }

    /// `evaluatedPolicyDomainState`: opaque, equal for one enrolment, different after any change.
    public var domainState: Data? {
        guard kind != .none, isEnrolled else { return nil }
        return Data("SharedKeychain.biometry.\(kind.rawValue).enrollment.\(enrollmentGeneration)".utf8)
    }

    /// Enrols a face or finger set: a new enrolment, whatever was enrolled before.
    public mutating func enroll() {
        isEnrolled = true
        // Wrapping: a crafted file may hold Int.max; any change of value is what counts.
        enrollmentGeneration &+= 1
        clearFailedMatches()
    }

    /// Removes every enrolled face or finger.
    public mutating func removeEnrollment() {
        isEnrolled = false
        enrollmentGeneration &+= 1
    }

    /// Counts a failed match (saturating: a crafted file may hold Int.max); the one
    /// that locks biometry out counts a lockout.
    mutating func recordFailedMatch() {
        let wasLockedOut = isLockedOut
        failedMatches = max(0, failedMatches) < Int.max ? max(0, failedMatches) + 1 : Int.max
        if !wasLockedOut && isLockedOut { lockoutCount &+= 1 }
    }

    /// Ends failed matches in a row (a match, a passcode entry); ending a lockout counts as a lockout change.
    mutating func clearFailedMatches() {
        if isLockedOut { lockoutCount &+= 1 }
        failedMatches = 0
    }

    /// Gives the sensor its life's identity if it has none yet (see ``incarnation``).
    mutating func beginIncarnation() {
        if incarnation == nil { incarnation = UUID().uuidString }
    }

    /// Takes the next scripted outcome and records the prompt.
    mutating func present(_ kind: PromptKind, reason: String) -> Outcome? {
        let outcome = scriptedOutcomes.isEmpty ? nil : scriptedOutcomes.removeFirst()
        let kept = reason.count > Self.reasonLimit ? String(reason.prefix(Self.reasonLimit - 1)) + "…" : reason
        presentedPrompts.append(Prompt(kind: kind, reason: kept, outcome: outcome))
        if presentedPrompts.count > Self.promptHistoryLimit { presentedPrompts.removeFirst(presentedPrompts.count - Self.promptHistoryLimit) }
        return outcome
    }

    private enum CodingKeys: String, CodingKey {
        case kind, isEnrolled, enrollmentGeneration, failedMatches, scriptedOutcomes, presentedPrompts, lockoutCount, incarnation
    }

    /// Reads a sensor file; files written before `lockoutCount` and `incarnation`
    /// existed read as no lockout so far and no incarnation yet.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        isEnrolled = try container.decode(Bool.self, forKey: .isEnrolled)
        enrollmentGeneration = try container.decode(Int.self, forKey: .enrollmentGeneration)
        failedMatches = try container.decode(Int.self, forKey: .failedMatches)
        scriptedOutcomes = try container.decode([Outcome].self, forKey: .scriptedOutcomes)
        presentedPrompts = try container.decode([Prompt].self, forKey: .presentedPrompts)
        lockoutCount = try container.decodeIfPresent(Int.self, forKey: .lockoutCount) ?? 0
        incarnation = try container.decodeIfPresent(String.self, forKey: .incarnation)
    }

    public var description: String {
        var parts = [kind == .none ? "no biometric sensor" : kind.rawValue]
        if kind != .none { parts.append(isEnrolled ? "enrolled (enrolment \(enrollmentGeneration))" : "not enrolled") }
        if isLockedOut { parts.append("locked out") } else if failedMatches > 0 { parts.append("\(failedMatches) failed match(es)") }
        parts.append(scriptedOutcomes.isEmpty ? "nothing scripted" : "next: " + scriptedOutcomes.map(\.rawValue).joined(separator: " "))
        return parts.joined(separator: ", ")
    }
}
