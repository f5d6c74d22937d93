/// Adding a protected item: the access control is bound to the current enrolment
/// (for `.biometryCurrentSet`), and refused when nothing could ever satisfy it now.
extension KeychainEngine {
    func boundAccessPolicy(_ query: ParsedQuery) throws -> AccessPolicy? {
        guard var policy = query.accessPolicy else { return nil }
        let biometry = try sensor()
        if policy.constraints.contains(.biometryCurrentSet) { policy.boundEnrollment = biometry.enrollmentGeneration }
        // What the user could prove today (a lockout passes; it ends with the passcode).
        let biometryUsable = biometry.kind != .none && biometry.isEnrolled && state.isPasscodeSet
        let possible = AuthenticationFactors(biometryEnrollment: biometryUsable ? biometry.enrollmentGeneration : nil, passcode: state.isPasscodeSet)
        if !policy.isSatisfied(by: possible) {
            let goal = AuthenticationGoal(allowsBiometry: policy.usesBiometry, allowsPasscode: policy.usesPasscode, requirements: [policy])
            let why = Authenticator.whyUnavailable(goal, biometry, state)
            throw KeychainError.authentication(AuthenticationFailure(
                status: SecStatus.authFailed, operation: Operation.add.rawValue, item: "the new \(query.itemClass) item",
                problem: "its access control \(policy.flagNames) cannot be satisfied on this device: \(why.explanation). Enrol biometry (KeychainDevice.enrollBiometry()) or set a passcode first, or choose .userPresence"))
        }
        return policy
    }
}
