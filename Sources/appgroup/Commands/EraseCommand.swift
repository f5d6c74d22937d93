import AppGroupContainer
import Foundation
import SharedKeychain

/// `appgroup erase [--root DIR]`: the whole simulated device, as
/// `xcrun simctl erase` resets a simulator.
enum EraseCommand {
    static let help = """
        usage: appgroup erase [--root DIR]

        Erases the whole simulated device under the container root, as `xcrun simctl
        erase` does: every group container, every app's own container (with its private
        suites), the keychain of every device name and the device state (passcode, lock).
        The root itself stays, empty. It asks for nothing.

        It refuses a root that is not an emulator root: one holding anything besides
        group containers (directories named by an App Group identifier), Applications,
        Keychains, Devices and hidden files; and /, the home directory and a root that does not
        exist. Symbolic links are removed, never followed: nothing outside the root is
        touched.

        Options:
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 1), erasing nothing, for a root it refuses.
        """

    /// The names the package makes directly under a root, besides group containers.
    static let deviceNames: Set<String> = [ContainerResolver.applicationsDirectoryName, KeychainDevice.directoryName,
                                           KeychainDevice.recordsDirectoryName]
    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root"], flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(0...0, "no arguments besides the options")
        let inspector = try Inspector(rootOption: arguments.option("root"))
        let root = inspector.root
        let names = try emulatorEntries(of: root)
        // By descriptor from the root (trusted as configured): the targets wrote
        // in there; a link is removed, never followed, and a folder they locked or
        // nested past PATH_MAX is removed whole.
        let held: HeldDirectory
        do {
            held = try HeldDirectory.open(root.standardizedFileURL.path, below: root.standardizedFileURL.path)
        } catch {
            throw CLIError.failed("cannot open the container root \(root.path): \(error); nothing was erased")
        }
        for name in names {
            let path = root.appendingPathComponent(name).path
            do {
                try held.removeTree(name)
            } catch {
                throw CLIError.failed("cannot erase \(path): \(error); what came before it in \(root.path) is erased")
            }
        }
    }

    /// The entries of `root`, once it is shown to be an emulator root.
    /// - Throws: ``CLIError`` naming the first entry that does not belong there.
    static func emulatorEntries(of root: URL) throws -> [String] {
        let path = root.path
        let home = FileManager.default.homeDirectoryForCurrentUser.standardizedFileURL.path
        guard path != "/" && path != home else {
            throw CLIError.failed("refusing to erase \(path): it is \(path == "/" ? "the file system's root" : "the home directory"), not an emulator root; pass --root DIR")
        }
        switch FileKind(root) {
        case .directory, .symbolicLink:
            break // a root given as a link is trusted as configured, as the library trusts it
        case .missing:
            throw CLIError.notFound("no container root at \(path): nothing to erase; pass --root DIR or set APP_GROUP_CONTAINERS_ROOT")
        case .unreadable(let code):
            throw CLIError.failed("cannot read the container root \(path): \(FileKind.reason(code))")
        case .regular, .other:
            throw CLIError.failed("refusing to erase \(path): it is not a directory, so not an emulator root")
        }
        let names = try FileKind.names(in: root).sorted()
        for name in names {
            let kind = FileKind(root.appendingPathComponent(name))
            if name == CoordinationTree.directoryName {
                // The package's coordination tree (its lock and signal files).
                if kind == .directory { continue }
            } else if name.hasPrefix(".") {
                // Lock and temporary files of the package; a hidden directory is someone else's.
                if case .regular = kind { continue }
            } else if GroupIdentifier(validating: name) != nil || deviceNames.contains(name) {
                if kind == .directory { continue }
                if case .symbolicLink = kind { continue } // planted: removed, never followed
            }
            throw CLIError.failed("refusing to erase \(path): it holds \(Arguments.quote(name)), which no emulator root holds "
                                  + "(only group containers, Applications, Keychains, Devices, .coordination and hidden lock files), so it may not be one; "
                                  + "check --root / APP_GROUP_CONTAINERS_ROOT, nothing was erased")
        }
        return names
    }
}
