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
///         <name>.device-state.plist            the device's state (AppGroupContainer's
///                                              `DeviceState`: power, lock, passcode, clock),
///                                              read by every store of the device
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
    public static let environmentKey = DeviceStateStore.environmentKey
    /// The directory under the root that holds every device's keychain.
    public static let directoryName = "Keychains"
    /// The directory under the root that holds every device's own records (its state,
    /// its biometric sensor): read-only to sandboxed targets.
    public static let recordsDirectoryName = DeviceStateStore.directoryName

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
    public var stateURL: URL { stateStore.url }
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

    /// The device's state record, the one every store of the device reads (AppGroupContainer's `DeviceStateStore`).
    var stateStore: DeviceStateStore { DeviceStateStore(root: root, name: name) }

    /// The device's current state; a device never configured is `DeviceState.unlocked`.
    /// - Throws: ``KeychainError/invalidKeychain(path:problem:)`` for a record that is not one.
    public func state() throws -> DeviceState {
        try Self.mapStateErrors { try stateStore.read() }
    }

    /// Changes the state under the device's lock, for every process at once.
    /// - Throws: ``KeychainError/notAvailable(problem:)`` in a target launched by a
    ///   simulated device (the state is the device's record), as do ``lock()``,
    ///   ``unlock()``, ``reboot()``, ``setPasscode(_:)`` and ``erase()``.
    @discardableResult
    public func changeState(_ change: (inout DeviceState) throws -> Void) throws -> DeviceState {
        try requireOwnership("changeState")
        return try Self.mapStateErrors {
            try stateStore.change("change the state of") { state in
                try change(&state)
                return state
            }
        }
    }

    /// Locks the screen: `WhenUnlocked` items become unreadable (with a passcode set).
    /// A locked device stays as it is.
    public func lock() throws { try changeState { try $0.apply(.lock, strictly: false) } }

    /// Unlocks the device; the first unlock since boot also opens `AfterFirstUnlock` items.
    public func unlock() throws { try changeState { try $0.apply(.unlock, strictly: false) } }

    /// Restarts the device: locked, and not unlocked since boot.
    public func reboot() throws { try changeState { try $0.apply(.reboot) } }

    /// The state store's errors as this module's: a damaged record is
    /// `errSecInvalidKeychain`, a refused change `errSecNotAvailable`.
    static func mapStateErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let AppGroupError.invalidDeviceState(path, problem) {
            throw KeychainError.invalidKeychain(path: path, problem: problem)
        } catch let error as AppGroupError {
            if case .deviceStateChangeRefused = error { throw KeychainError.notAvailable(problem: error.description) }
            throw KeychainError.storage(error)
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
            try FileCoordinator(timeout: 30).coordinate(writingItemAt: stateURL, writingItemAt: writeLockURL) { _, _ in
                try Self.mapStateErrors {
                    try stateStore.changeCoordinated { state in
                        state.isPasscodeSet = enabled
                        // Without a passcode the screen opens with a swipe: data protection sees it unlocked.
                        if !enabled, state.hasBeenUnlockedSinceBoot { state.condition = .unlocked }
                        guard !enabled else { return 0 }
                        return try modifyItemsLocked(try presentParts()) { content in
                            let before = content.items.count
                            content.items.removeAll { $0.accessibility == .whenPasscodeSetThisDeviceOnly }
                            return before - content.items.count
                        }
                    }
                }
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
                _ = try Self.mapStateErrors { try stateStore.remove() }
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
