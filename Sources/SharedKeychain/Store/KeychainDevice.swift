import AppGroupContainer
import AppGroupFoundation
import Foundation

/// A simulated device's keychain and lock state, shared by every process that
/// names the same root and device.
///
/// Files live beside the group containers, never inside one, so an app's items
/// outlive its "uninstall" (removing its containers), as on iOS. Each access group's
/// items have a directory of their own, so that the kernel lets a sandboxed target
/// reach only the groups its entitlements make it hold, as securityd does on iOS:
///
///     <root>/Keychains/                        0700, the device's: no target may open it
///         AccessGroups/                        0700, the device's
///             <group>/                         0700, one per access group: read and
///                                              written only by targets holding the group
///                 <name>.keychain-db           the group's items on device <name>
///                                              (binary plist), 0600
///         FileBased/<name>.keychain-db         macOS's file-based keychain (no access
///                                              groups): every target may use it, as
///                                              every app of a user may on macOS
///         <name>.keychain-db                   only from an earlier version: moved into
///                                              the above by the first process that is
///                                              not a target, then removed
///     <root>/Devices/                          the device's own records
///         <name>.device-state.plist            locked, unlocked since boot, passcode
///         <name>.biometry.plist                the simulated biometric sensor
///
/// `<group>` is the group's name where it is letters, digits, `-`, `_` and `.`
/// (not first), any other byte as `%XX`, and `~` plus SHA-256 of the name when that
/// would be longer than 160 bytes (``accessGroupDirectoryName(_:)``). Lock files lie
/// in the root's coordination tree; one lock, taken on the path earlier versions
/// kept every item at, `Keychains/<name>.keychain-db`, orders every change of the
/// device's items.
///
/// `Devices` holds what iOS's securityd and the Secure Enclave keep to themselves:
/// a target launched by a simulated device may read it but never write it (its
/// sandbox says so, enforced by the kernel), so it can neither unlock the device
/// nor script its own biometric match; a prompt it shows is run by the device, asked
/// over the channel the device made for it. The test process and tools change them
/// (``lock()``, ``scriptBiometry(_:)``, `appgroup device`, `appgroup biometry`).
///
/// `Keychains` and `Devices` cannot collide with a container: a group identifier
/// starts with `group.` or a ten-character Team ID and a dot.
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
    /// The directory under the root that holds every device's own records (its state,
    /// its biometric sensor): read-only to sandboxed targets.
    public static let recordsDirectoryName = "Devices"

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

    /// The directory holding the keychains of every device of the root (``accessGroupsDirectory``, ``fileBasedDirectory``).
    public var directory: URL { root.appendingPathComponent(Self.directoryName, isDirectory: true) }
    /// The directory holding the device's own records (``stateURL``, ``biometryURL``).
    public var recordsDirectory: URL { root.appendingPathComponent(Self.recordsDirectoryName, isDirectory: true) }
    /// The device-state file.
    public var stateURL: URL { recordsDirectory.appendingPathComponent(name + ".device-state.plist") }
    /// Where earlier versions kept the state and the sensor, in the directory every
    /// target may write: never read (what is there may be a target's), only removed by ``erase()``.
    var legacyRecordURLs: [URL] {
        [directory.appendingPathComponent(name + ".device-state.plist"), directory.appendingPathComponent(name + ".biometry.plist")]
    }

    /// True in a target launched by a simulated device whose root this is: the
    /// device's records are read-only here, and what a target may change of them
    /// (a prompt) is asked of the device.
    var isOwnedByLaunchingDevice: Bool {
        DeviceRequestChannel.isConnected && ContainerResolver.root().standardizedFileURL.path == root.path
    }

    /// Makes the directories of `parts` and, outside a target (which cannot: its
    /// device made them before launching it), the records' directory beside them.
    func makeDirectories(for parts: [KeychainPart]) throws {
        for part in parts { try KeychainFile.makeDirectory(directory(of: part), below: containerRoot) }
        if !isOwnedByLaunchingDevice { try KeychainFile.makeDirectory(recordsDirectory, below: containerRoot) }
    }

    /// Refuses, in a target launched by a device, a change only the device makes.
    func requireOwnership(_ operation: String) throws {
        guard isOwnedByLaunchingDevice else { return }
        throw KeychainError.notAvailable(problem: "\(operation): the state and the biometric sensor of \(self) are the device's own records, which a target process cannot change (on iOS only the system does); change them from the test process (KeychainDevice.\(operation)) or with `appgroup device` / `appgroup biometry`")
    }

    public var description: String { "simulated device \"\(name)\" at \(directory.path)" }

    // MARK: State

    /// The device's current state; a device never configured is ``DeviceState/unlocked``.
    public func state() throws -> DeviceState {
        try KeychainFile.loadValue(DeviceState.self, from: stateURL, below: containerRoot) ?? .unlocked
    }

    /// Changes the state under the device's lock, for every process at once.
    /// - Throws: ``KeychainError/notAvailable(problem:)`` in a target launched by a
    ///   simulated device (the state is the device's record), as do ``lock()``,
    ///   ``unlock()``, ``reboot()``, ``setPasscode(_:)`` and ``erase()``.
    @discardableResult
    public func changeState(_ change: (inout DeviceState) throws -> Void) throws -> DeviceState {
        try requireOwnership("changeState")
        try KeychainFile.makeDirectory(recordsDirectory, below: containerRoot)
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
    /// `WhenPasscodeSetThisDeviceOnly` item of every access group, as iOS does; returns how many.
    @discardableResult
    public func setPasscode(_ enabled: Bool) throws -> Int {
        try requireOwnership("setPasscode")
        try migrateLegacyKeychainIfNeeded()
        try KeychainFile.makeDirectory(directory, below: containerRoot)
        try KeychainFile.makeDirectory(recordsDirectory, below: containerRoot)
        return try KeychainFile.mapErrors(stateURL) {
            try FileCoordinator(timeout: 30).coordinate(writingItemAt: stateURL, writingItemAt: writeLockURL) { stateURL, _ in
                let before = try KeychainFile.loadValue(DeviceState.self, from: stateURL, below: containerRoot) ?? .unlocked
                var state = before
                state.isPasscodeSet = enabled
                if !enabled { state.isLocked = false }
                state = before.advanced(to: state)
                var removed = 0
                if !enabled {
                    removed = try modifyItemsLocked(try presentParts()) { content in
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
    /// way, as on iOS, to be rid of orphaned group items. The access groups'
    /// directories stay (other devices of the root keep their files there).
    public func erase() throws {
        try requireOwnership("erase")
        try KeychainFile.makeDirectory(directory, below: containerRoot)
        try KeychainFile.makeDirectory(recordsDirectory, below: containerRoot)
        try KeychainFile.mapErrors(writeLockURL) {
            try FileCoordinator(timeout: 30).coordinate(writingItemAt: stateURL, writingItemAt: writeLockURL) { stateURL, _ in
                for part in try presentParts() { try KeychainFile.remove(url(of: part), below: containerRoot) }
                try KeychainFile.remove(legacyKeychainURL, below: containerRoot)
                try KeychainFile.remove(stateURL, below: containerRoot)
                try KeychainFile.remove(biometryURL, below: containerRoot)
                for legacy in legacyRecordURLs { try KeychainFile.remove(legacy, below: containerRoot) }
            }
        }
    }

    /// How many items the device holds, across every identity and access group (for tests and tools).
    public func itemCount() throws -> Int {
        try migrateLegacyKeychainIfNeeded()
        return try presentParts().reduce(0) { $0 + (try load($1).items.count) }
    }
}
