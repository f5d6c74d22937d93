import AppGroupContainer
import Foundation

/// A simulated device's keychain and lock state, shared by every process that
/// names the same root and device.
///
/// Files live beside the group containers, never inside one, so an app's items
/// outlive its "uninstall" (removing its containers), as on iOS:
///
///     <root>/Keychains/                        0700
///         <name>.keychain-db                   the items (binary plist), 0600
///         <name>.device-state.plist            locked, unlocked since boot, passcode
///         <name>.biometry.plist                the simulated biometric sensor
///         .<name>.keychain-db.lock             lock files (see the locking protocol)
///
/// `Keychains` cannot collide with a container: a group identifier starts with
/// `group.` or a ten-character Team ID and a dot.
public struct KeychainDevice: Sendable, Hashable, CustomStringConvertible {
    /// The container root the device's files sit in.
    public let root: URL
    /// The device's name, a file-name-safe word (`default` unless given).
    public let name: String

    /// The name used when none is given.
    public static let defaultName = "default"
    /// The environment variable naming the device of the calling process.
    public static let environmentKey = "APP_GROUP_KEYCHAIN_DEVICE"
    /// The directory under the root that holds every device's keychain.
    public static let directoryName = "Keychains"

    /// - Parameters:
    ///   - root: the container root; nil for `APP_GROUP_CONTAINERS_ROOT` or the default
    ///     (see `ContainerResolver.root(environment:)`).
    ///   - name: letters, digits, `-`, `_` and `.`, not starting with a dot, at most 64.
    /// - Throws: ``KeychainError/invalidParameter(operation:problem:)`` for a bad name.
    public init(root: URL? = nil, name: String = KeychainDevice.defaultName) throws {
        let valid = !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix(".") && !name.contains("..")
            && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
        guard valid else {
            throw KeychainError.invalidParameter(operation: "KeychainDevice",
                problem: "device name \"\(name.prefix(80))\" must be 1 to 64 letters, digits, '-', '_' or '.', not starting with a dot")
        }
        self.root = (root ?? ContainerResolver.root()).standardizedFileURL
        self.name = name
    }

    /// The root as the file primitives take it: every file of the device is
    /// reached from it without following a symbolic link.
    var containerRoot: ContainerRoot { ContainerRoot(root) }

    /// The device named by the environment (`APP_GROUP_CONTAINERS_ROOT`, `APP_GROUP_KEYCHAIN_DEVICE`).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> KeychainDevice {
        let name = environment[environmentKey].flatMap { $0.isEmpty ? nil : $0 } ?? defaultName
        return try KeychainDevice(root: ContainerResolver.root(environment: environment), name: name)
    }

    /// The directory holding the device files.
    public var directory: URL { root.appendingPathComponent(Self.directoryName, isDirectory: true) }
    /// The keychain file.
    public var keychainURL: URL { directory.appendingPathComponent(name + ".keychain-db") }
    /// The device-state file.
    public var stateURL: URL { directory.appendingPathComponent(name + ".device-state.plist") }

    public var description: String { "simulated device \"\(name)\" at \(directory.path)" }

    // MARK: State

    /// The device's current state; a device never configured is ``DeviceState/unlocked``.
    public func state() throws -> DeviceState {
        try KeychainFile.loadValue(DeviceState.self, from: stateURL, below: containerRoot) ?? .unlocked
    }

    /// Changes the state under the device's lock, for every process at once.
    @discardableResult
    public func changeState(_ change: (inout DeviceState) throws -> Void) throws -> DeviceState {
        try KeychainFile.makeDirectory(directory, below: containerRoot)
        return try KeychainFile.mapErrors(stateURL) {
            try FileCoordinator(timeout: 30).coordinate(writingItemAt: stateURL) { url in
                let before = try KeychainFile.loadValue(DeviceState.self, from: url, below: containerRoot) ?? .unlocked
                var state = before
                try change(&state)
                // A lock, a restart or a passcode change ends what LAContexts proved.
                state = before.advanced(to: state)
                try KeychainFile.saveValue(state, to: url, below: containerRoot)
                return state
            }
        }
    }

    /// Locks the screen: `WhenUnlocked` items become unreadable (with a passcode set).
    public func lock() throws { try changeState { $0.isLocked = true } }

    /// Unlocks the device; the first unlock since boot also opens `AfterFirstUnlock` items.
    public func unlock() throws {
        try changeState {
            $0.isLocked = false
            $0.hasBeenUnlockedSinceBoot = true
        }
    }

    /// Restarts the device: locked, and not unlocked since boot.
    public func reboot() throws {
        try changeState {
            $0.isLocked = true
            $0.hasBeenUnlockedSinceBoot = false
        }
    }

    /// Sets or removes the passcode. Removing it deletes every
    /// `WhenPasscodeSetThisDeviceOnly` item, as iOS does; returns how many.
    @discardableResult
    public func setPasscode(_ enabled: Bool) throws -> Int {
        try KeychainFile.makeDirectory(directory, below: containerRoot)
        return try KeychainFile.mapErrors(stateURL) {
            try FileCoordinator(timeout: 30).coordinate(writingItemAt: stateURL, writingItemAt: keychainURL) { stateURL, keychainURL in
                let before = try KeychainFile.loadValue(DeviceState.self, from: stateURL, below: containerRoot) ?? .unlocked
                var state = before
                state.isPasscodeSet = enabled
                if !enabled { state.isLocked = false }
                state = before.advanced(to: state)
                var removed = 0
                if !enabled {
                    removed = try KeychainFile.modifyLocked(keychainURL, below: containerRoot) { content in
                        let before = content.items.count
                        content.items.removeAll { $0.accessibility == .whenPasscodeSetThisDeviceOnly }
                        return before - content.items.count
                    }
                }
                try KeychainFile.saveValue(state, to: stateURL, below: containerRoot)
                return removed
            }
        }
    }

    /// Erases the device: every item of every app and group, and the state. The only
    /// way, as on iOS, to be rid of orphaned group items.
    public func erase() throws {
        try KeychainFile.makeDirectory(directory, below: containerRoot)
        try KeychainFile.mapErrors(keychainURL) {
            try FileCoordinator(timeout: 30).coordinate(writingItemAt: stateURL, writingItemAt: keychainURL) { stateURL, keychainURL in
                try KeychainFile.remove(keychainURL, below: containerRoot)
                try KeychainFile.remove(stateURL, below: containerRoot)
                try KeychainFile.remove(biometryURL, below: containerRoot)
            }
        }
    }

    /// How many items the device holds, across every identity (for tests and tools).
    public func itemCount() throws -> Int { try KeychainFile.load(keychainURL, below: containerRoot).items.count }
}
