import Foundation

/// What a message about a child process names: the command, the target it ran as
/// (with its identity) and the device it ran on, so that a failure read in a CI
/// log says which of several processes failed and where to look.
struct ProcessLabel: Sendable, Hashable, CustomStringConvertible {
    var executable: URL
    var arguments: [String]
    var target: SimulatedTarget?
    var deviceDirectory: URL?
    /// True when the environment was given outright (no target's identity applied).
    var explicitEnvironment: Bool
    /// What a failure report adds about the process's sandbox (SimulatedDevice+Sandbox.swift); nil for none.
    var sandboxNote: String? = nil
    /// Looks, when the process has ended, for a group suite saved with Foundation's own class.
    var foundationSuites: FoundationSuiteCheck? = nil

    var command: String {
        ([executable.lastPathComponent] + arguments.map(Self.quoted)).joined(separator: " ")
    }

    var description: String {
        var text = "`\(command)`"
        if let target {
            text += " as \(target)"
        } else if !explicitEnvironment {
            text += " with no identity"
        }
        if let deviceDirectory { text += " on the simulated device at \(deviceDirectory.path)" }
        return text
    }

    private static func quoted(_ argument: String) -> String {
        let plain = !argument.isEmpty && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@%+,".contains($0) }
        return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension SimulatedTarget: CustomStringConvertible {
    /// The target and its whole identity, for failure messages:
    /// `NotesShare (share extension ai.systenics.notes.share, team A1B2C3D4E5,
    /// App Groups [group.ai.systenics.notes], keychain access groups [A1B2C3D4E5.ai.systenics.notes.shared])`.
    public var description: String {
        let groups = entitlements.applicationGroups.map(\.rawValue).joined(separator: ", ")
        let keychain = entitlements.keychainAccessGroups.joined(separator: ", ")
        return "\(name) (\(kind.phrase) \(bundleIdentifier), team \(entitlements.teamIdentifier), "
            + "App Groups [\(groups)], keychain access groups [\(keychain)])"
    }
}

extension SimulatedTarget.Kind {
    /// The kind in words, as a sentence names it.
    var phrase: String {
        switch self {
        case .app: "app"
        case .shareExtension: "share extension"
        case .widget: "widget"
        case .notificationExtension: "notification extension"
        case .other: "target"
        }
    }
}
