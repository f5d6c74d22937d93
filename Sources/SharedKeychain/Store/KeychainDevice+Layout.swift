import Foundation

/// Where a device's items live: one directory per access group, so that the
/// sandbox lets a target reach only the groups it holds (KeychainDevice's
/// doc comment draws the tree).
extension KeychainDevice {
    /// The directory under ``directory`` holding one directory per access group.
    public static let accessGroupsDirectoryName = "AccessGroups"
    /// The directory under ``directory`` holding macOS's file-based keychain.
    public static let fileBasedDirectoryName = "FileBased"

    /// `<root>/Keychains/AccessGroups`: the access groups' directories (the device's; no target may write it).
    public var accessGroupsDirectory: URL { directory.appendingPathComponent(Self.accessGroupsDirectoryName, isDirectory: true) }
    /// `<root>/Keychains/FileBased`: macOS's file-based keychain, which every target may read and write.
    public var fileBasedDirectory: URL { directory.appendingPathComponent(Self.fileBasedDirectoryName, isDirectory: true) }

    /// The directory of `group`'s items on every device of the root:
    /// `<root>/Keychains/AccessGroups/<name>`, the name as ``accessGroupDirectoryName(_:)`` makes it.
    public func directory(forAccessGroup group: String) -> URL {
        accessGroupsDirectory.appendingPathComponent(Self.accessGroupDirectoryName(group), isDirectory: true)
    }

    /// The file holding `group`'s items on this device: `<name>.keychain-db` in ``directory(forAccessGroup:)``.
    public func itemsURL(forAccessGroup group: String) -> URL {
        directory(forAccessGroup: group).appendingPathComponent(fileName)
    }

    /// The file holding this device's items of macOS's file-based keychain.
    public var fileBasedItemsURL: URL { fileBasedDirectory.appendingPathComponent(fileName) }

    /// The file name of this device's items in each directory: `<name>.keychain-db`.
    public var fileName: String { name + ".keychain-db" }

    /// The directory name of an access group: the group's bytes, letters, digits,
    /// `-`, `_` and `.` (not first) as they are and any other byte as `%XX`; `~`
    /// and the SHA-256 of the group's bytes when that would be longer than 160 bytes.
    /// Exact: two Unicode spellings of a name are two directories.
    public static func accessGroupDirectoryName(_ group: String) -> String { AccessGroupDirectoryName.encode(group) }

    /// Where earlier versions kept every item of the device: read (outside a
    /// target) only to move its items into the groups' files, then removed.
    var legacyKeychainURL: URL { directory.appendingPathComponent(fileName) }

    /// The item the device's keychain write lock is taken on (the file earlier
    /// versions wrote, so that a process of an earlier version excludes this one).
    /// Its lock file lies in the root's coordination tree, which every target may
    /// write: a target can take the lock, and holding it delays the others'
    /// changes, as any lock does; it reaches no item by it.
    package var writeLockURL: URL { legacyKeychainURL }

    /// ``directory``'s path, made without a URL (the root is standardized already).
    var keychainsPath: String { (root.path == "/" ? "" : root.path) + "/" + Self.directoryName }

    /// ``directory(of:)``'s path, made without a URL: what a read of several groups opens.
    func directoryPath(of part: KeychainPart) -> String {
        keychainsPath + "/" + (part.directoryName.map { Self.accessGroupsDirectoryName + "/" + $0 } ?? Self.fileBasedDirectoryName)
    }

    func directory(of part: KeychainPart) -> URL {
        part.directoryName.map { accessGroupsDirectory.appendingPathComponent($0, isDirectory: true) } ?? fileBasedDirectory
    }

    func url(of part: KeychainPart) -> URL { directory(of: part).appendingPathComponent(fileName) }
}
