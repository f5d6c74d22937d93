import AppGroupContainer
import Foundation

/// Files of earlier versions: every item of a device in one file,
/// `<root>/Keychains/<name>.keychain-db`. The first process that is not a
/// sandboxed target to use the device (the test process, a tool, the device
/// launching a target) moves its items into the groups' files under the device's
/// keychain write lock, then removes it. A target never reads it: it may not even
/// open `Keychains`, and what is there was written before the groups were split.
extension KeychainDevice {
    /// Moves the legacy file's items into the groups' files, if there is one.
    func migrateLegacyKeychainIfNeeded() throws {
        guard !isOwnedByLaunchingDevice else { return }
        let present = try KeychainFile.mapErrors(legacyKeychainURL) { () throws -> Bool in
            guard let keychains = try DirectoryHandle.open(standardizedPath: keychainsPath, below: containerRoot) else { return false }
            return try keychains.hasEntry(fileName)
        }
        if present { try migrateLegacyKeychain() }
    }

    /// Moves the items under the lock; an item whose primary key its group's file
    /// already holds (a migration interrupted after that file was saved) is not
    /// added twice. The legacy file is removed only once every group file is saved.
    func migrateLegacyKeychain() throws {
        try KeychainFile.mapErrors(legacyKeychainURL) {
            CoordinationTree.ensurePrepared(containerRoot)
            try FileCoordinator(timeout: 30).coordinate(writingItemAt: writeLockURL, options: .forMerging) { _ in
                var legacy = try KeychainFile.loadLocked(legacyKeychainURL, below: containerRoot, validate: nil)
                KeychainEngine.assignMissingIdentifiers(in: &legacy)
                var parts: [KeychainPart] = []
                for item in legacy.items where !parts.contains(KeychainPart.of(item)) { parts.append(KeychainPart.of(item)) }
                for part in parts { try KeychainFile.makeDirectory(directory(of: part), below: containerRoot) }
                try modifyItemsLocked(parts) { content in
                    var keys = Set(content.items.map(\.primaryKey))
                    for item in legacy.items where keys.insert(item.primaryKey).inserted { content.items.append(item) }
                }
                try KeychainFile.remove(legacyKeychainURL, below: containerRoot)
            }
        }
    }

    /// Before launching a target: makes the directories of the access groups
    /// `identity` holds (as the keychain orders them on iOS, a superset of macOS's)
    /// and the file-based keychain's, moves every legacy device file of `root` into
    /// the groups' files, and returns the directories the target may read and write.
    package static func prepareTargetDirectories(root: URL, identity: Entitlements) throws -> [URL] {
        let device = try KeychainDevice(root: root)
        let groups = AccessGroups(identity: identity, behavior: .iOS).ordered
        let directories = [device.fileBasedDirectory] + groups.map(device.directory(forAccessGroup:))
        for directory in directories { try KeychainFile.makeDirectory(directory, below: device.containerRoot) }
        // A legacy file that cannot be moved (damaged) must not stop the launch:
        // the next call outside a target moves it, or throws saying why.
        do {
            for legacy in try device.legacyDeviceNames() { try KeychainDevice(root: root, name: legacy).migrateLegacyKeychain() }
        } catch {
            Diagnostics.warn("SharedKeychain: the keychain file of an earlier version in \(device.directory.path) was not moved into the access groups' files before a launch: \(error)")
        }
        return directories
    }

    /// The names of the devices whose legacy file lies in `Keychains` (bounded listing).
    func legacyDeviceNames() throws -> [String] {
        try KeychainFile.mapErrors(directory) {
            guard let keychains = try DirectoryHandle.open(directory, below: containerRoot) else { return [] }
            var names: [String] = []
            var seen = 0
            try keychains.forEachEntry { entry in
                seen += 1
                guard seen <= Self.accessGroupLimit else {
                    throw KeychainError.invalidKeychain(path: keychains.path, problem: "it holds more than \(Self.accessGroupLimit) entries; remove what does not belong there")
                }
                guard entry.hasSuffix(".keychain-db"), !entry.hasPrefix(".") else { return }
                let name = String(entry.dropLast(".keychain-db".count))
                if (try? KeychainDevice(root: root, name: name)) != nil { names.append(name) }
            }
            return names.sorted()
        }
    }
}
