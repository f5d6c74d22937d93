import AppGroupContainer
import Foundation

// The simulated biometric sensor is scripted here, on the device, rather than in
// AppGroupTesting: the probes and apps under test reach it the same way (they
// have a KeychainDevice, not a SimulatedDevice), and AppGroupTesting stays free
// of the keychain.
extension KeychainDevice {
    /// The sensor file, among the device's records: `Devices/<name>.biometry.plist`.
    public var biometryURL: URL { recordsDirectory.appendingPathComponent(name + ".biometry.plist") }

    /// The sensor's current state; a device never configured is ``SimulatedBiometry/enrolledFaceID``.
    public func biometry() throws -> SimulatedBiometry {
        try KeychainFile.loadValue(SimulatedBiometry.self, from: biometryURL, below: containerRoot) ?? .enrolledFaceID
    }

    /// Changes the sensor under its lock, for every process at once; `body` also
    /// sees the device state (read under the same lock, not changed).
    /// - Throws: ``KeychainError/notAvailable(problem:)`` in a target launched by a
    ///   simulated device (the sensor is the device's record; its prompts are run by
    ///   the device), as does every other change of the sensor below.
    @discardableResult
    public func changeBiometry<T>(_ body: (inout SimulatedBiometry, DeviceState) throws -> T) throws -> T {
        try requireOwnership("changeBiometry")
        try KeychainFile.makeDirectory(recordsDirectory, below: containerRoot)
        return try KeychainFile.mapErrors(biometryURL) {
            try FileCoordinator(timeout: 30).coordinate(writingItemAt: biometryURL) { url in
                var sensor = try KeychainFile.loadValue(SimulatedBiometry.self, from: url, below: containerRoot) ?? .enrolledFaceID
                let result = try body(&sensor, try state())
                try KeychainFile.saveValue(sensor, to: url, below: containerRoot)
                return result
            }
        }
    }

    /// Replaces the sensor hardware (`.none`: a device without Touch ID or Face ID).
    public func setBiometryKind(_ kind: SimulatedBiometry.Kind) throws {
        try changeBiometry { sensor, _ in sensor.kind = kind }
    }

    /// Enrols a new face (or finger set): `evaluatedPolicyDomainState` changes and
    /// `.biometryCurrentSet` items added before become unreadable (errSecItemNotFound).
    public func enrollBiometry() throws {
        try changeBiometry { sensor, _ in sensor.enroll() }
    }

    /// Removes the enrolled face or fingers.
    public func removeBiometryEnrollment() throws {
        try changeBiometry { sensor, _ in sensor.removeEnrollment() }
    }

    /// Queues what the user does at the next prompts, in order, after any already queued.
    /// - Throws: ``KeychainError/invalidParameter(operation:problem:)``, queueing
    ///   nothing, when the queue would hold more than
    ///   ``SimulatedBiometry/scriptedOutcomeLimit``.
    public func scriptBiometry(_ outcomes: [SimulatedBiometry.Outcome]) throws {
        try changeBiometry { sensor, _ in
            let queued = sensor.scriptedOutcomes.count
            guard queued + outcomes.count <= SimulatedBiometry.scriptedOutcomeLimit else {
                throw KeychainError.invalidParameter(operation: "scriptBiometry",
                    problem: "\(outcomes.count) more outcome(s) would exceed the \(SimulatedBiometry.scriptedOutcomeLimit) the sensor's queue holds (\(queued) already queued); nothing was queued: let prompts consume some, or resetBiometry() first")
            }
            sensor.scriptedOutcomes += outcomes
        }
    }

    /// Resets the sensor to an enrolled Face ID with no lockout, nothing scripted and no
    /// history. The enrolment generation is kept, so nothing invalidated comes back,
    /// and so is what ended `LAContext` authentications (lockouts, the sensor's life).
    public func resetBiometry() throws {
        try changeBiometry { sensor, _ in
            var fresh = SimulatedBiometry(kind: .faceID, isEnrolled: true, enrollmentGeneration: sensor.enrollmentGeneration)
            // Kept too, so what a lockout or an erase ended stays ended.
            sensor.clearFailedMatches()
            fresh.lockoutCount = sensor.lockoutCount
            fresh.incarnation = sensor.incarnation
            sensor = fresh
        }
    }
}
