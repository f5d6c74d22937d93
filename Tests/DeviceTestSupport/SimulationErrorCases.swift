import AppGroupTesting

/// The details of each case of ``SimulationError``, for tests that assert on them.
extension SimulationError {
    package var processFailure: ProcessFailure? { if case .processFailed(let detail) = self { detail } else { nil } }
    package var executableNotBuilt: ExecutableNotBuilt? { if case .executableNotBuilt(let detail) = self { detail } else { nil } }
    package var invalidDeviceName: InvalidDeviceName? { if case .invalidDeviceName(let detail) = self { detail } else { nil } }
    package var invalidKeepPolicy: InvalidKeepPolicy? { if case .invalidKeepPolicy(let detail) = self { detail } else { nil } }
    package var invalidInfoPlist: InvalidInfoPlist? { if case .invalidInfoPlist(let detail) = self { detail } else { nil } }
    package var buildSetting: BuildSettingFailure? { if case .buildSetting(let detail) = self { detail } else { nil } }
    package var sandbox: SandboxFailure? { if case .sandbox(let detail) = self { detail } else { nil } }
}
