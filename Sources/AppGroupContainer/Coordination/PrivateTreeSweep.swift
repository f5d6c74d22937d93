import Foundation
import AppGroupSystem

/// Keeps the user's private coordination tree small. Its items are outside every
/// device root (files in temporary directories, mostly), and nothing removes a
/// temporary directory through the coordinator, so their lock files would pile
/// up there forever. Once per process, when the tree holds more than
/// ``threshold`` entries, the lock files of items whose directory no longer
/// exists are removed, each while holding its exclusive lock without waiting (a
/// lock someone holds or waits for stays): every participant's check after
/// locking (<doc:LockingProtocol>, section 5) makes that safe.
package enum PrivateTreeSweep {
    static let threshold = 2048
    private static let done = Locked(false)

    /// Sweeps `tree` (the private tree, open) the first time it is called in this process.
    static func onceIfLarge(_ tree: ContainedDirectory) {
        let first = done.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { _ = sweep(tree, threshold: threshold) }
    }

    /// ``sweep(_:threshold:)`` of the directory at `path` (for tests and tools).
    package static func sweep(directoryAt path: String, threshold: Int) throws(AppGroupError) -> Int {
        let fd = try fromSystem(SystemCalls.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW))
        let tree = ContainedDirectory(fd: fd, path: path)
        defer { tree.close() }
        return sweep(tree, threshold: threshold)
    }

    /// Removes the lock files of `tree` whose item's directory is gone, when it
    /// holds more than `threshold` entries. Returns how many went.
    @discardableResult
    static func sweep(_ tree: ContainedDirectory, threshold: Int) -> Int {
        var names: [String] = []
        do {
            try SystemCalls.forEachEntry(at: tree.fd, path: tree.path) { names.append($0) }
        } catch {
            return 0
        }
        guard names.count > threshold else { return 0 }
        var removed = 0
        for name in names where name.hasSuffix(".lock") && !name.hasPrefix(".") {
            let path = tree.path(of: name)
            guard let fd = try? SystemCalls.open(at: tree.fd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK, path: path) else { continue }
            defer { SystemCalls.close(fd) }
            guard let st = try? SystemCalls.fstat(fd, path: path), SystemCalls.isRegular(st), st.st_uid == SystemCalls.effectiveUser,
                  let label = try? SystemCalls.readAll(fd, path: path, sizeHint: 256, limit: 8192),
                  let key = String(data: label, encoding: .utf8)?.split(separator: "\n").first, key.hasPrefix("/"),
                  let slash = key.lastIndex(of: "/") else { continue }
            let directory = slash == key.startIndex ? "/" : String(key[..<slash])
            guard SystemCalls.isAbsent(directory) else { continue } // its directory is still there (or cannot be told)
            guard SystemCalls.lock(fd, FileLock.Mode.exclusive.rawValue, wait: false, path: path) == nil else { continue }
            // Still the file the name holds (not replaced since it was opened)?
            guard let named = try? SystemCalls.lstat(at: tree.fd, name, path: path),
                  named.st_dev == st.st_dev, named.st_ino == st.st_ino else { continue }
            if (try? SystemCalls.unlink(at: tree.fd, name, path: path)) == true { removed += 1 }
        }
        return removed
    }
}
