import AppGroupContainer
import AppGroupSystem
import Foundation
internal import SharedKeychain

/// What a spawned target may reach on its device, as the kernel enforces it: the
/// places it may read and write, and those it may only read (and execute).
/// Everything else is refused (`EACCES`; see <doc:TheSandbox>).
///
/// Read and write, as on iOS: the target's own data container (its home, with
/// `tmp`) and the containers of the App Groups its entitlements list. Read and
/// write besides, because here the target's own process does what iOS's daemons
/// do for it: the device's coordination trees (`.coordination`, the lock files of
/// coordinated items; filecoordinationd on iOS) and the keychain directories of
/// exactly the access groups its entitlements make it hold
/// (`Keychains/AccessGroups/<group>`: keychain-access-groups, the application
/// identifier, the App Groups; securityd on iOS, which checks the access groups:
/// here the kernel refuses the others' files), with macOS's file-based keychain
/// (`Keychains/FileBased`, which every app of a user may use on macOS). `Keychains`
/// itself and `Keychains/AccessGroups` are the device's: not even read.
///
/// Read only: the device's own records (`Devices`: the keychain's device state and
/// the biometric sensor, which only the device changes; a prompt is asked of it),
/// the target's bundle and the directory of the executable it runs,
/// the device's `scratch` folder (what a share sheet hands an extension), the
/// toolchain and the system's libraries and configuration (`/usr`, `/lib`, `/etc`,
/// the directories of every library this process has loaded, the toolchain's
/// `libexec/swift` for the crash backtracer), `/proc` and `/sys`.
/// `/dev/null`, `/dev/zero` and `/dev/full` may be written; `/dev/random` and
/// `/dev/urandom` read.
public struct SandboxProfile: Sendable, Hashable {
    /// Directories the target may read, write, create in and remove from.
    public let readWrite: [URL]
    /// Directories (and files) it may read and execute.
    public let readOnly: [URL]
    /// Device files it may read and write.
    public let devices: [URL]

    /// The profile of `target` running `executable` from `bundle` on `device`.
    /// Missing containers are made: a rule names an existing directory.
    static func make(device: SimulatedDevice, target: SimulatedTarget, home: DataContainer, bundle: URL,
                     executable: URL, trace: URL?) throws -> SandboxProfile {
        let resolver = device.resolver(for: target)
        var readWrite = [home.home]
        for group in target.entitlements.applicationGroups {
            readWrite.append(try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: group.rawValue))
        }
        let keychains = device.root.appendingPathComponent(KeychainDevice.directoryName, isDirectory: true)
        try RaceFreeDirectory.make(keychains, intermediates: false, mode: 0o700)
        // Made here, by the device, with each group's directory: a rule names an
        // existing directory, and a target cannot make one in `Keychains`.
        readWrite += try keychainDirectories(root: device.root, identity: target.entitlements)
        // Made here, by the device: a rule names an existing directory, and a
        // target cannot make it (the root is not its to write).
        let records = device.root.appendingPathComponent(KeychainDevice.recordsDirectoryName, isDirectory: true)
        try RaceFreeDirectory.make(records, intermediates: false, mode: 0o700)
        readWrite += [device.root.appendingPathComponent(CoordinationTree.directoryName, isDirectory: true),
                      device.directory.appendingPathComponent(CoordinationTree.directoryName, isDirectory: true)]
        // Where the target writes its trace file, on a traced device: its launch's own directory.
        if let trace { readWrite.append(trace) }
        var readOnly = [records, bundle, executable.deletingLastPathComponent(), device.scratch]
        readOnly += systemPaths.map { URL(fileURLWithPath: $0, isDirectory: true) }
        readOnly += SandboxSystemCalls.mappedLibraryDirectories().map { URL(fileURLWithPath: $0, isDirectory: true) }
        readOnly += backtracerDirectories.map { URL(fileURLWithPath: $0, isDirectory: true) }
        let devices = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"].map { URL(fileURLWithPath: $0) }
        return SandboxProfile(readWrite: readWrite, readOnly: readOnly, devices: devices)
    }

    /// The keychain directories `identity` may read and write, made (and the root's
    /// keychain files of earlier versions moved into them) by the keychain.
    static func keychainDirectories(root: URL, identity: Entitlements) throws -> [URL] {
        do {
            return try KeychainDevice.prepareTargetDirectories(root: root, identity: identity)
        } catch let KeychainError.storage(error) {
            throw SimulationError.container(error)
        } catch {
            throw SimulationError.container(.invalidRoot(path: root.appendingPathComponent(KeychainDevice.directoryName).path,
                problem: "the keychain's directories could not be prepared for the target: \(error)"))
        }
    }

    /// The system's programs, libraries and configuration, and the kernel's views
    /// of the process (a missing one is skipped).
    static let systemPaths = ["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/sys"]

    /// The toolchain's `libexec/swift/<platform>` beside each Swift runtime directory
    /// (`<toolchain>/usr/lib/swift/linux`): the runtime executes `swift-backtrace`
    /// from there when a process crashes, and a crashing target must still print its
    /// backtrace.
    static var backtracerDirectories: [String] {
        SandboxSystemCalls.mappedLibraryDirectories().compactMap { directory in
            guard let range = directory.range(of: "/lib/swift/", options: .backwards) else { return nil }
            return directory.replacingCharacters(in: range, with: "/libexec/swift/")
        }
    }

    /// A Landlock ruleset for this profile at ABI `abi` (its descriptor): every
    /// filesystem right the kernel knows is handled, so anything not allowed here is refused.
    func ruleset(abi: Int) throws -> Int32 {
        typealias Access = SandboxSystemCalls.Access
        let handled = Access.handled(byABI: abi)
        let ruleset: Int32
        do {
            ruleset = try SandboxSystemCalls.createRuleset(handling: handled)
        } catch {
            throw SimulationError.sandbox(SandboxFailure(operation: "landlock_create_ruleset", path: nil, errno: error))
        }
        let reading: Access = [.execute, .readFile, .readDirectory]
        do {
            for url in readWrite { try allow(handled, url.path, ruleset) }
            for url in readOnly { try allow(reading, url.path, ruleset) }
            for url in devices { try allow(handled.intersection([.readFile, .writeFile, .truncate, .ioctlDevice]), url.path, ruleset) }
        } catch {
            SandboxSystemCalls.closeDescriptor(ruleset)
            throw error
        }
        return ruleset
    }

    private func allow(_ access: SandboxSystemCalls.Access, _ path: String, _ ruleset: Int32) throws {
        guard let isDirectory = SandboxSystemCalls.isDirectory(path) else { return } // missing: nothing to allow
        let rights = isDirectory ? access : access.intersection(SandboxSystemCalls.Access.fileRights)
        do {
            try SandboxSystemCalls.allow(rights, beneath: path, in: ruleset)
        } catch {
            throw SimulationError.sandbox(SandboxFailure(operation: "landlock_add_rule", path: path, errno: error))
        }
    }
}

/// A target's sandbox could not be set up or applied: the system call, the path
/// and the errno. Launching it unenforced (``SandboxMode/unenforced``) works
/// around it while it is looked into.
public struct SandboxFailure: Sendable, Hashable, CustomStringConvertible {
    /// The system call that failed.
    public let operation: String
    /// The path it was given, if any.
    public let path: String?
    /// Its error.
    public let errno: Errno

    public var description: String {
        "the sandbox could not be set up: \(operation)\(path.map { "(\($0))" } ?? "") failed: \(errno); "
            + "launch the target with sandbox: .unenforced to run it without one meanwhile"
    }
}
