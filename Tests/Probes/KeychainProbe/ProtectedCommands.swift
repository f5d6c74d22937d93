// On Darwin, SecItem and LAContext are Apple's own (the real keychain and sensor):
// see main.swift, which refuses to run there.
#if !canImport(Darwin)
import Foundation
import ProbeSupport
import SharedKeychain
import LocalAuthentication

// The probe's commands for protected items and the simulated sensor (issue 13):
//
//   seed-save --account A --secret S      the guide's saveBiometricProtectedSecret; prints saved | threw ...
//   seed-read --account A [--expect S]    the guide's readProtectedSecret; prints match | mismatch | threw ...
//   biometry state|enroll|unenroll|reset|kind K|script O...
//                                         reads or changes the shared sensor; prints its state line
//   evaluate --policy biometrics|owner [--reason R]
//                                         LAContext().evaluatePolicy (reply form); prints success | error=CODE

/// The sensor on one line, `key=value` words, for tests to parse.
func sensorLine(_ sensor: SimulatedBiometry) -> String {
    "kind=\(sensor.kind.rawValue) enrolled=\(sensor.isEnrolled) generation=\(sensor.enrollmentGeneration) failed=\(sensor.failedMatches)"
        + " lockedOut=\(sensor.isLockedOut) scripted=\(sensor.scriptedOutcomes.map(\.rawValue).joined(separator: ",")) prompts=\(sensor.presentedPrompts.count)"
}

/// How a thrown error reads on the probe's output: the guide's cases by name, others by domain and code.
func thrownLine(_ error: any Error) -> String {
    if let error = error as? KeychainError {
        switch error {
        case let .unexpectedStatus(status): return "threw unexpectedStatus(\(status))"
        default: return "threw \(error)"
        }
    }
    let ns = error as NSError
    return "threw domain=\(ns.domain) code=\(ns.code)"
}

func runProtectedCommand(_ command: String) {
    switch command {
    case "seed-save":
        do {
            try saveBiometricProtectedSecret(secret: option("secret"), account: option("account"))
            say("saved")
        } catch {
            say(thrownLine(error))
        }
    case "seed-read":
        do {
            let secret = try readProtectedSecret(account: option("account"))
            say(secret == (optionalOption("expect") ?? "") ? "match" : "mismatch")
        } catch {
            say(thrownLine(error))
        }
    case "biometry":
        let words = Array(CommandLine.arguments.dropFirst(2))
        do {
            let device = try KeychainDevice.fromEnvironment()
            switch words.first ?? "" {
            case "state": break
            case "enroll": try device.enrollBiometry()
            case "unenroll": try device.removeBiometryEnrollment()
            case "reset": try device.resetBiometry()
            case "kind":
                guard let kind = words.dropFirst().first.flatMap(SimulatedBiometry.Kind.init(rawValue:)) else {
                    fail("biometry kind needs none, touchID or faceID", code: 64)
                }
                try device.setBiometryKind(kind)
            case "script":
                var outcomes: [SimulatedBiometry.Outcome] = []
                for word in words.dropFirst() {
                    guard let outcome = SimulatedBiometry.Outcome(rawValue: word) else {
                        fail("unknown outcome \(word); use \(SimulatedBiometry.Outcome.allCases.map(\.rawValue).joined(separator: ", "))", code: 64)
                    }
                    outcomes.append(outcome)
                }
                try device.scriptBiometry(outcomes)
            default:
                fail("biometry needs state, enroll, unenroll, reset, kind K or script O...", code: 64)
            }
            say(sensorLine(try device.biometry()))
        } catch {
            fail("\(error)")
        }
    case "evaluate":
        let policy: LAPolicy
        switch option("policy") {
        case "biometrics": policy = .deviceOwnerAuthenticationWithBiometrics
        case "owner": policy = .deviceOwnerAuthentication
        default: fail("--policy must be biometrics or owner", code: 64)
        }
        let context = LAContext()
        let done = DispatchSemaphore(value: 0)
        let answer = LockedLine()
        context.evaluatePolicy(policy, localizedReason: optionalOption("reason") ?? "Probe evaluation") { success, error in
            answer.set(success ? "success" : "error=\((error as? LAError)?.code.rawValue ?? 0)")
            done.signal()
        }
        done.wait()
        say(answer.get())
    default:
        fail("unknown command \(command)", code: 64)
    }
}

/// A line written by the reply queue and read after it signalled.
final class LockedLine: @unchecked Sendable {
    private let lock = NSLock()
    private var line = ""
    func set(_ value: String) { lock.lock(); line = value; lock.unlock() }
    func get() -> String { lock.lock(); defer { lock.unlock() }; return line }
}
#endif
