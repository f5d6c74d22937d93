import AppGroupContainer
import Foundation

/// Reading and changing the device's items across the groups' files.
///
/// A read loads the files of the parts it names (each cached by file identity)
/// and takes no lock: each file is replaced atomically. A change takes the
/// device's one keychain write lock (``writeLockURL``), so a change spanning
/// several groups (a move, `setPasscode(false)`, an administrative delete) never
/// loses another process's update; it saves only the files whose items changed,
/// those gaining items first, so that an interrupted move leaves two copies, never none.
extension KeychainDevice {
    /// The most entries `AccessGroups` may hold; beyond it a listing fails rather than run on.
    static let accessGroupLimit = 4096

    /// The items of `parts`, in that order (each file's in its own order).
    func loadItems(_ parts: [KeychainPart]) throws -> KeychainFileContent {
        try migrateLegacyKeychainIfNeeded()
        if parts.count == 1 { return try load(parts[0]) }
        var merged = KeychainFileContent()
        for part in parts { merged.items += try load(part).items }
        return merged
    }

    func load(_ part: KeychainPart) throws -> KeychainFileContent {
        try KeychainFile.load(directoryPath: directoryPath(of: part), name: fileName, below: containerRoot, validate: Self.validator(part))
    }

    /// Runs `body` on the items of `parts()` (computed under the lock) under the
    /// device's keychain write lock, then saves each part whose items changed.
    /// Every item `body` leaves must belong to one of the parts.
    func modifyItems<T>(_ parts: () throws -> [KeychainPart], timeout: TimeInterval?,
                        _ body: (inout KeychainFileContent) throws -> T) throws -> T {
        try migrateLegacyKeychainIfNeeded()
        return try KeychainFile.mapErrors(writeLockURL) {
            CoordinationTree.ensurePrepared(containerRoot)
            return try FileCoordinator(timeout: timeout).coordinate(writingItemAt: writeLockURL, options: .forMerging) { _ in
                try modifyItemsLocked(try parts(), body)
            }
        }
    }

    /// ``modifyItems(_:timeout:_:)`` for a caller holding the device's keychain write lock.
    func modifyItemsLocked<T>(_ parts: [KeychainPart], _ body: (inout KeychainFileContent) throws -> T) throws -> T {
        var unique: [KeychainPart] = []
        for part in parts where !unique.contains(part) { unique.append(part) }
        var before: [[StoredItem]] = []
        var merged = KeychainFileContent()
        for part in unique {
            let items = try KeychainFile.loadLocked(url(of: part), below: containerRoot, validate: Self.validator(part)).items
            before.append(items)
            merged.items += items
        }
        let result = try body(&merged)
        var after = Array(repeating: [StoredItem](), count: unique.count)
        for item in merged.items {
            guard let index = unique.firstIndex(of: KeychainPart.of(item)) else {
                throw KeychainError.notAvailable(problem: "\(item.summary) would belong in \(KeychainPart.of(item).description), which this change did not lock; nothing was written")
            }
            after[index].append(item)
        }
        let changed = unique.indices.filter { after[$0] != before[$0] }
            .sorted { after[$0].count - before[$0].count > after[$1].count - before[$1].count }
        for index in changed {
            try KeychainFile.saveLocked(KeychainFileContent(items: after[index]), to: url(of: unique[index]), below: containerRoot)
        }
        return result
    }

    /// Every part of the root's keychain: the file-based one, then each access
    /// group's directory (sorted by name). The listing is bounded, follows no link
    /// and refuses a name the keychain does not make.
    func presentParts() throws -> [KeychainPart] {
        try KeychainFile.mapErrors(accessGroupsDirectory) {
            guard let groups = try DirectoryHandle.open(accessGroupsDirectory, below: containerRoot) else { return [.fileBased] }
            var names: [String] = []
            try groups.forEachEntry { name in
                guard names.count < Self.accessGroupLimit else {
                    throw KeychainError.invalidKeychain(path: groups.path,
                        problem: "it holds more than \(Self.accessGroupLimit) entries, more than any device's access groups; remove what does not belong there")
                }
                guard AccessGroupDirectoryName.isValid(name) else {
                    throw KeychainError.invalidKeychain(path: groups.path + "/" + name,
                        problem: "this is not the name of an access group's directory (the keychain makes only the names KeychainDevice.accessGroupDirectoryName(_:) gives); nothing was changed: remove it")
                }
                names.append(name)
            }
            return [.fileBased] + names.sorted().map { KeychainPart(directoryName: $0) }
        }
    }

    /// What a file of `part` may hold: only items that belong in it. An item of
    /// another group was put there by a process that may write this group's
    /// directory (a target holding it): nothing of the file is used.
    static func validator(_ part: KeychainPart) -> (KeychainFileContent, URL) throws -> Void {
        { content, url in
            for item in content.items where KeychainPart.of(item) != part {
                throw KeychainError.invalidKeychain(path: url.path,
                    problem: "it holds an item of \(item.kind == .fileBased ? "the file-based keychain" : "access group \"\(item.accessGroup.prefix(200))\""), which does not belong in \(part.description): a process that may write this file put it there, and nothing of the file was used. Remove the file (KeychainDevice.erase(), or delete it) to go on")
            }
        }
    }
}
