import Foundation

/// Protected items in the four calls: which calls prompt, and what they return.
extension Keychain {
    /// The matched `items` a call may use, after whatever authentication their access
    /// control demands. Calls that do not touch a value (attribute-only searches,
    /// deletes) never get here with `operation` needing one and never prompt.
    ///
    /// - `.biometryCurrentSet` items bound to an earlier enrolment are invalidated: -25300.
    /// - `kSecUseAuthenticationUISkip` leaves protected items out; `...Fail` (or
    ///   `interactionNotAllowed`) answers -25308 instead of prompting.
    /// - An `LAContext` that already proved enough is reused without a prompt, when it
    ///   proved it on this device and what it proved still holds here (no lock, restart,
    ///   passcode change or erase since; for a biometric match, no lockout or enrolment change).
    /// - Otherwise one authentication covers every matched item; -128 or -25293 when it fails.
    func authorize(_ query: ParsedQuery, _ items: [StoredItem], engine: KeychainEngine, operation: Operation) throws -> [StoredItem] {
        guard operation == .update || query.returnData else { return items }
        // The sensor is read only when a matched item is protected.
        let sensor = items.contains { $0.accessPolicy != nil } ? try engine.sensor() : nil
        let current = sensor?.enrollmentGeneration
        var kept = items.filter { item in
            guard let policy = item.accessPolicy, let current else { return true }
            return !policy.isInvalidated(currentEnrollment: current)
        }
        if kept.isEmpty {
            throw KeychainError.itemNotFound(query: query.summary + " (the matching item is protected by .biometryCurrentSet and the enrolled biometry changed since it was added, which invalidated it; delete it and add it again)")
        }
        let protected = kept.filter { $0.accessPolicy?.needsAuthentication ?? false }
        guard let first = protected.first else { return kept }
        if query.authenticationUI == .skip {
            kept.removeAll { $0.accessPolicy?.needsAuthentication ?? false }
            if kept.isEmpty { throw KeychainError.itemNotFound(query: query.summary + " (kSecUseAuthenticationUISkip left out the protected items that matched)") }
            return kept
        }
        let policies = protected.compactMap(\.accessPolicy)
        let goal = AuthenticationGoal(allowsBiometry: policies.contains { $0.usesBiometry }, allowsPasscode: policies.contains { $0.usesPasscode },
                                      requirements: policies)
        let context = query.authenticationContext
        let view = context?.keychainView
        func failure(_ outcome: AuthenticationOutcome) -> KeychainError {
            .authentication(AuthenticationFailure(outcome, operation: operation.rawValue, item: first.summary))
        }
        if view?.isInvalidated == true { throw failure(.invalidContext) }
        // What the context proved counts only on the device that proved it, in the state it was proved in.
        if let proof = view?.proved, let sensor, goal.isMet(proof.factors(on: device, sensor: sensor, state: engine.state)) { return kept }
        if query.authenticationUI == .fail || view?.interactionNotAllowed == true { throw failure(.notInteractive) }
        let reason = view.map(\.reason).flatMap { $0.isEmpty ? nil : $0 } ?? "Authenticate to access \(first.summary)"
        switch try Authenticator(device: device).authenticate(goal, reason: reason) {
        case let .success(proof):
            context?.recordKeychainAuthentication(proof)
            return kept
        case let .failure(outcome):
            throw failure(outcome)
        }
    }
}
