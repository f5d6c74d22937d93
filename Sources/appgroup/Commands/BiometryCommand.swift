import Foundation
import PropertyLists
import SharedKeychain

/// `appgroup device biometry ...`: the simulated device's biometric sensor from the
/// shell, as Simulator's Features > Face ID menu drives a simulator's ("Enrolled",
/// "Matching Face", "Non-matching Face"), plus what the menu cannot do: queue cancels
/// and fallbacks, re-enrol, and show the prompts the code under test presented.
enum BiometryCommand {
    static let help = """
        usage: appgroup device biometry [status] [--json]
               appgroup device biometry type none|touch-id|face-id
               appgroup device biometry enroll|unenroll|re-enroll
               appgroup device biometry next OUTCOME...
               appgroup device biometry reset
        (each also takes [--root DIR] [--device NAME])

        The simulated device's biometric sensor, shared by every app and extension using
        the device, as Simulator's Features > Face ID (Touch ID) menu sets a simulator's.
        Nothing waits for a human: each prompt an app shows (a scan, or a passcode entry)
        takes the next queued outcome.
          status     type, enrolment, failed matches and lockout, the passcode, the queued
                     outcomes, and the last prompts shown (kind, reason, outcome): what the
                     code under test asked. With --json: one object, every prompt kept.
          type T     the sensor hardware: none, touch-id or face-id (the enrolment stays)
          enroll     enrols a face or fingers ("Enrolled" checked); no change if enrolled
          unenroll   removes the enrolment ("Enrolled" unchecked); no change if none
          re-enroll  enrols a new face or finger set: evaluatedPolicyDomainState changes,
                     .biometryCurrentSet items become unreadable (errSecItemNotFound; `keychain
                     list` shows them invalidated), .biometryAny items stay; ends a lockout
          next O...  queues what the user does at the next prompts, in order, after any
                     already queued:
                       match          the face or finger matches ("Matching Face");
                                      at a passcode prompt, the right passcode
                       no-match       it does not ("Non-matching Face"); five failed
                                      matches in a row lock biometry out, as on iOS
                       cancel         the user taps Cancel (errSecUserCanceled, -128)
                       fallback       the user taps the fallback button ("Enter Password")
                       system-cancel  the system dismisses the prompt
                     A prompt with nothing queued is answered as a system cancel.
          reset      Face ID, enrolled, no lockout, nothing queued, no prompt history; the
                     enrolment generation is kept, so invalidated items stay invalid
        A change prints, on one line, the state it leaves. A lockout ends with a passcode
        entry (an app's .deviceOwnerAuthentication), re-enroll or reset.

        Options:
          --json         status as JSON
          --device NAME  the device (default: APP_GROUP_KEYCHAIN_DEVICE, else "default")
          --root DIR     the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)
        """

    static let commands = ["status", "type", "enroll", "unenroll", "re-enroll", "next", "reset"]
    /// How many of the recorded prompts `status` prints (--json prints every one kept).
    static let promptsShown = 10

    /// Runs `device biometry`; `arguments` are the device command's, `biometry` first.
    static func run(_ arguments: Arguments) throws {
        if arguments.wantsHelp { return Output.line(help) }
        let words = Array(arguments.positionals.dropFirst())
        let action = words.first ?? "status"
        let operands = Array(words.dropFirst())
        guard commands.contains(action) else {
            throw CLIError.usage("unknown biometry command \(Arguments.quote(action)): use \(Help.list(commands))")
        }
        if arguments.flag("json") && action != "status" {
            throw CLIError.usage("--json is for device biometry status only")
        }
        switch action {
        case "type": try Arguments.expect(operands, 1...1, "a biometry type: \(Help.list(kindWords))")
        case "next": try Arguments.expect(operands, 1...Int.max, "at least one outcome: \(Help.list(outcomeWords))")
        default: try Arguments.expect(operands, 0...0, "")
        }
        // Every word is checked before anything changes: a bad one queues nothing.
        let kind = try action == "type" ? parseKind(operands[0]) : nil
        let outcomes = try action == "next" ? operands.map(parseOutcome) : []
        let device = try KeychainCommand.device(arguments)
        if action == "status" { return try status(device, json: arguments.flag("json")) }
        if action == "next" { try queue(outcomes, on: device) }
        let sensor = try KeychainCommand.keychainCall { () -> SimulatedBiometry in
            switch action {
            case "type": if let kind { try device.setBiometryKind(kind) }
            case "enroll": try device.changeBiometry { sensor, _ in if !sensor.isEnrolled { sensor.enroll() } }
            case "unenroll": try device.changeBiometry { sensor, _ in if sensor.isEnrolled { sensor.removeEnrollment() } }
            case "re-enroll": try device.enrollBiometry()
            case "next": break
            default: try device.resetBiometry()
            }
            return try device.biometry()
        }
        Output.line("\(device.name): \(summary(sensor))")
    }

    /// The most outcomes the queue may hold (the library's limit).
    static let queueLimit = SimulatedBiometry.scriptedOutcomeLimit

    /// Queues `outcomes` under the sensor's lock, all or none.
    static func queue(_ outcomes: [SimulatedBiometry.Outcome], on device: KeychainDevice) throws {
        let refusedWith = try KeychainCommand.keychainCall {
            try device.changeBiometry { sensor, _ -> Int? in
                guard sensor.scriptedOutcomes.count + outcomes.count <= queueLimit else { return sensor.scriptedOutcomes.count }
                sensor.scriptedOutcomes += outcomes
                return nil
            }
        }
        if let queued = refusedWith {
            throw CLIError.badValue("\(outcomes.count) more outcome(s) would exceed the \(queueLimit) the queue holds (\(queued) already queued): "
                + "queue fewer, or empty the queue with `device biometry reset`; nothing was queued")
        }
    }

    // MARK: Words

    static let kindWords = ["none", "touch-id", "face-id"]
    static let outcomeWords = SimulatedBiometry.Outcome.allCases.map(\.rawValue)

    static func word(_ kind: SimulatedBiometry.Kind) -> String {
        switch kind {
        case .none: return "none"
        case .touchID: return "touch-id"
        case .faceID: return "face-id"
        }
    }

    /// A type word; the library's raw spellings (`touchID`, as the probe takes them) too.
    static func parseKind(_ text: String) throws -> SimulatedBiometry.Kind {
        if let kind = SimulatedBiometry.Kind.allCases.first(where: { word($0) == text || $0.rawValue == text }) { return kind }
        throw CLIError.badValue("\(PlutilText.quote(text)) is not a biometry type: use \(Help.list(kindWords))")
    }

    static func parseOutcome(_ text: String) throws -> SimulatedBiometry.Outcome {
        if let outcome = SimulatedBiometry.Outcome(rawValue: text) { return outcome }
        throw CLIError.badValue("\(PlutilText.quote(text)) is not an outcome: use \(Help.list(outcomeWords)) (nothing was queued)")
    }

    // MARK: Status

    /// The sensor on one line, in the command's own words.
    static func summary(_ sensor: SimulatedBiometry) -> String {
        var parts: [String] = []
        if sensor.kind == .none {
            parts.append("no sensor (type none)")
        } else {
            parts.append(word(sensor.kind))
            parts.append(sensor.isEnrolled ? "enrolled (enrolment \(sensor.enrollmentGeneration))" : "not enrolled")
            let failed = sensor.failedMatches == 1 ? "1 failed match" : "\(sensor.failedMatches == 0 ? "no" : String(sensor.failedMatches)) failed matches"
            parts.append(sensor.isLockedOut ? "locked out (\(failed))" : failed)
        }
        parts.append(sensor.scriptedOutcomes.isEmpty ? "nothing queued" : "next: " + sensor.scriptedOutcomes.map(\.rawValue).joined(separator: " "))
        return parts.joined(separator: ", ")
    }

    static func status(_ device: KeychainDevice, json: Bool) throws {
        let (sensor, state) = try KeychainCommand.keychainCall { (try device.biometry(), try device.state()) }
        if json { return try Output.json(jsonObject(device, sensor, state)) }
        let threshold = SimulatedBiometry.lockoutThreshold
        let enrolment = "enrolment \(sensor.enrollmentGeneration)"
        let lockout = sensor.isLockedOut ? ": locked out (a passcode entry, re-enroll or reset ends it)" : ""
        let queued = sensor.scriptedOutcomes.map(\.rawValue).joined(separator: " ")
        var lines: [String] = ["\(device.name): \(summary(sensor))"]
        lines.append("    type:           \(word(sensor.kind))")
        lines.append("    enrolled:       " + (sensor.isEnrolled ? "yes (\(enrolment))" : "no (\(enrolment))"))
        lines.append("    failed matches: \(sensor.failedMatches) of \(threshold)" + lockout)
        lines.append("    passcode:       " + (state.isPasscodeSet ? "set" : "not set (biometry cannot be used)"))
        lines.append("    next outcomes:  " + (queued.isEmpty ? "none queued (a prompt would be answered as a system cancel)" : queued))
        let prompts = sensor.presentedPrompts
        if prompts.isEmpty {
            lines.append("    prompts shown:  none")
        } else {
            let hidden = max(0, prompts.count - promptsShown)
            lines.append("    prompts shown:  \(prompts.count)" + (hidden > 0 ? " (the last \(promptsShown) below, oldest first; --json lists all)" : " (oldest first)"))
            for prompt in prompts.dropFirst(hidden) {
                lines.append("        \(prompt.kind.rawValue) \(PlutilText.quote(prompt.reason)): " + (prompt.outcome?.rawValue ?? "nothing queued (system cancel)"))
            }
        }
        lines.forEach(Output.line)
    }

    static func jsonObject(_ device: KeychainDevice, _ sensor: SimulatedBiometry, _ state: DeviceState) -> [String: Any] {
        [
            "device": device.name, "type": word(sensor.kind), "enrolled": sensor.isEnrolled,
            "enrollmentGeneration": sensor.enrollmentGeneration, "failedMatches": sensor.failedMatches,
            "lockoutThreshold": SimulatedBiometry.lockoutThreshold, "lockedOut": sensor.isLockedOut,
            "passcodeSet": state.isPasscodeSet, "next": sensor.scriptedOutcomes.map(\.rawValue),
            "prompts": sensor.presentedPrompts.map { prompt -> [String: Any] in
                ["kind": prompt.kind.rawValue, "reason": prompt.reason, "outcome": prompt.outcome.map { $0.rawValue as Any } ?? NSNull()]
            },
        ]
    }
}
