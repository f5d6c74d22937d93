#if !canImport(Darwin)
import Foundation
import AppGroupSystem

/// The cross-process signal of coordinated changes: how a write coordinated by
/// NSFileCoordinator in one process reaches presenters in another.
///
/// A presented item has a signal file in its coordination tree
/// (``CoordinationTree``: `<root>/.coordination/<hash>.changes`, never beside the
/// item), created when a presenter of it is registered. A coordinated write of an
/// item, before its locks are released, appends a record to the signal file of the
/// item and of each directory above it that has one (no signal file: nobody
/// presents it, nothing is written). The file keeps the last ``capacity`` records,
/// one per line: `<writer> <sequence> <presenter> <kind> <path> [<new path>]`,
/// where `writer` is a random token of the writing process, `presenter` the
/// presenter of the writing coordinator (0 for none; it is not told of its own
/// change), and the paths are percent-encoded. The writer then posts
/// `coordination.<H>.changes` on the device's signal table (``SignalTable``);
/// presenting processes observe that name and read the records they have not seen.
/// Uncoordinated writes never touch a signal file, so they are not reported, as on
/// Apple platforms. The file is read and written under its own advisory lock,
/// waited for at most ``lockPatience`` seconds.
///
/// A signal file is used only when it is a regular file of this user with one
/// link: a FIFO, a device, a hard link to another file or another user's file
/// planted at its path is never read or written (a writer skips it with a
/// diagnostic; a presenter's registration replaces it with a file of its own).
package enum ChangeSignal {
    /// Records kept per signal file; a reader that fell further behind reports a
    /// change rather than lose one.
    package static let capacity = 16
    /// Larger signal files are not read (a crafted or corrupt file).
    static let sizeLimit: Int64 = 1 << 20

    package enum Kind: String, Sendable {
        case change
        case move
    }

    package struct Record: Sendable, Hashable {
        package let writer: String
        package let sequence: UInt64
        package let presenter: UInt
        package let kind: Kind
        package let path: String
        package let newPath: String?

        package var id: String { writer + " " + String(sequence) }

        package var line: String {
            var fields = [writer, String(sequence), String(presenter), kind.rawValue, ChangeSignal.encode(path)]
            if let newPath { fields.append(ChangeSignal.encode(newPath)) }
            return fields.joined(separator: " ")
        }

        /// Nil for a line this code did not write (blank, padding, or crafted).
        package init?(line: Substring) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 5 || fields.count == 6,
                  let sequence = UInt64(fields[1]), let presenter = UInt(fields[2]),
                  let kind = Kind(rawValue: String(fields[3])),
                  let path = ChangeSignal.decode(fields[4]) else { return nil }
            var newPath: String?
            if fields.count == 6 {
                guard let decoded = ChangeSignal.decode(fields[5]) else { return nil }
                newPath = decoded
            }
            self.init(writer: String(fields[0]), sequence: sequence, presenter: presenter, kind: kind, path: path, newPath: newPath)
        }

        package init(writer: String, sequence: UInt64, presenter: UInt, kind: Kind, path: String, newPath: String?) {
            (self.writer, self.sequence, self.presenter, self.kind, self.path, self.newPath) = (writer, sequence, presenter, kind, path, newPath)
        }
    }

    /// This process's writer token: random, so a reused process id is never taken
    /// for an earlier process.
    package static let writer = String(UInt64.random(in: 1...UInt64.max), radix: 16)
    private static let sequence = Locked<UInt64>(0)

    /// How long a reader or writer waits for another's lock on a signal file
    /// before giving up on that notice (it is held for a read or a rewrite of a
    /// few hundred bytes; a longer hold is a process stopped or hostile).
    static let lockPatience: TimeInterval = 2

    /// The signal file of the item at the standardized absolute `itemPath`; nil for
    /// "/" and for an item whose tree cannot be found.
    package static func signalPath(forItemPath itemPath: String) -> String? {
        guard let (tree, key) = location(ofItemPath: itemPath) else { return nil }
        return tree.filePath(forKey: key, suffix: ".changes")
    }

    private static func location(ofItemPath itemPath: String) -> (CoordinationTree, String)? {
        guard let slash = itemPath.lastIndex(of: "/") else { return nil }
        let name = itemPath[itemPath.index(after: slash)...]
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        return try? CoordinationTree.locate(itemPath)
    }

    /// Creates the signal file of `itemPath` if it is missing (0600, never through
    /// a symbolic link), making its tree if needed; something else planted at its
    /// path is replaced.
    package static func create(forItemPath itemPath: String) throws(AppGroupError) {
        guard let (tree, key) = location(ofItemPath: itemPath) else {
            throw .unsafePath(path: itemPath, problem: "the root directory cannot be presented; present a file or directory below it")
        }
        let directory = try tree.open(creating: true)
        defer { directory.close() }
        let name = CoordinationTree.fileName(forKey: key, suffix: ".changes")
        let path = directory.path(of: name)
        for attempt in 0..<2 {
            let fd: Int32
            do {
                fd = try SystemCalls.open(at: directory.fd, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK, path: path)
            } catch .call(_, _, let code) where code == .ELOOP && attempt == 0 {
                try fromSystem(SystemCalls.unlink(at: directory.fd, name, path: path)) // a link planted in the package's own tree
                continue
            } catch {
                throw AppGroupError(error)
            }
            defer { SystemCalls.close(fd) } // never locked here
            if let problem = unusable(try fromSystem(SystemCalls.fstat(fd, path: path))) {
                guard attempt == 0 else { throw .unsafePath(path: path, problem: problem) }
                try fromSystem(SystemCalls.unlink(at: directory.fd, name, path: path))
                Diagnostics.warn("NSFileCoordinator: \(path) was \(problem); it was replaced by a signal file of this process's own")
                continue
            }
            return
        }
    }

    /// Appends a record of a coordinated `kind` change of `itemPath` to the signal
    /// files of the item and of every directory above it that has one. Called under
    /// the write's locks. Failures are reported as diagnostics: the write itself
    /// succeeded, only the notice of it is missing.
    package static func post(_ kind: Kind, itemPath: String, newPath: String? = nil, excluding presenter: UInt) {
        let number = sequence.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let record = Record(writer: writer, sequence: number, presenter: presenter, kind: kind, path: itemPath, newPath: newPath)
        var current = itemPath
        var known: (tree: CoordinationTree, root: String)?
        var privateTree: CoordinationTree?
        while true {
            // Directories above the item and still below its device root share its
            // tree: their keys are prefixes of its key, with no search. Above an item
            // under no device root, no directory is under one either (the search
            // looked at each): they share the private tree, keyed by path. Searching
            // again for each would cost the depth squared (a path thousands deep).
            var place: (tree: CoordinationTree, key: String)?
            if let known, current.utf8.count > known.root.utf8.count + 1 {
                place = (known.tree, String(decoding: current.utf8.dropFirst(known.root.utf8.count + 1), as: UTF8.self))
            } else if let privateTree {
                place = (privateTree, current)
            } else if let (tree, key) = location(ofItemPath: current) {
                if let root = tree.root { known = (tree, root) } else { privateTree = tree }
                place = (tree, key)
            }
            if let place {
                let signal = place.tree.filePath(forKey: place.key, suffix: ".changes")
                do {
                    if try append(record, to: signal) {
                        // The record is the payload; the post wakes the presenting
                        // processes (Signals/README.md).
                        try SignalTable.forTree(place.tree).post(signalName(ofFile: signal))
                    }
                } catch {
                    Diagnostics.warn("NSFileCoordinator: presenters of \(AppGroupError.quote(current)) in other processes were not told of a change: \(error)")
                }
            }
            guard let slash = current.lastIndex(of: "/"), slash != current.startIndex else { break }
            current = String(current[..<slash])
        }
    }

    /// The name posted on the device's signal table after a record is appended to
    /// the signal file at `path`: `coordination.<H>.changes`.
    package static func signalName(ofFile path: String) -> String {
        "coordination." + (path.split(separator: "/").last.map(String.init) ?? path)
    }

    /// The records in the signal file at `path`; nil when it cannot be read (then
    /// the reader assumes a change). A file past ``sizeLimit``, or not a file this
    /// user may trust, is not read: a diagnostic names it (once per file and
    /// process, so that a hostile writer cannot flood the log).
    package static func records(at path: String) -> [Record]? {
        do throws(AppGroupError) {
            let fd = try fromSystem(SystemCalls.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK))
            defer { SystemCalls.unlockAndClose(fd, path: path) }
            if let problem = unusable(try fromSystem(SystemCalls.fstat(fd, path: path))) {
                throw .unsafePath(path: path, problem: "it is \(problem), so its change records were not read")
            }
            try lock(fd, .shared, path: path)
            return parse(try fromSystem(SystemCalls.readAll(fd, path: path, sizeHint: 4096, limit: sizeLimit)))
        } catch {
            switch error {
            case .fileTooLarge, .unsafePath: Diagnostics.warnOnce(about: "unread " + path, "NSFilePresenter: the change records in \(AppGroupError.quote(path)) were not read, and a change is assumed: \(error)")
            default: break
            }
            return nil
        }
    }

    /// Appends `record`; false when there is no signal file (nobody presents the item).
    private static func append(_ record: Record, to path: String) throws(AppGroupError) -> Bool {
        let fd: Int32
        do {
            fd = try SystemCalls.open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK)
        } catch .call(_, _, let code) where code == .ENOENT || code == .ENOTDIR || code == .EACCES {
            return false // nobody presents this item (or it cannot be presented from here)
        } catch {
            throw AppGroupError(error)
        }
        defer { SystemCalls.unlockAndClose(fd, path: path) }
        if let problem = unusable(try fromSystem(SystemCalls.fstat(fd, path: path))) {
            throw .unsafePath(path: path, problem: "it is \(problem), so no change record was written to it")
        }
        try lock(fd, .exclusive, path: path)
        let old = (try? SystemCalls.readAll(fd, path: path, sizeHint: 4096, limit: sizeLimit)) ?? Data()
        let kept = (parse(old).suffix(capacity - 1) + [record]).map(\.line).joined(separator: "\n") + "\n"
        var bytes = Data(kept.utf8)
        // Rewritten in place; newlines pad over whatever a longer old text left.
        if bytes.count < old.count { bytes.append(Data(repeating: UInt8(ascii: "\n"), count: old.count - bytes.count)) }
        try fromSystem(SystemCalls.writeAll(fd, bytes, at: 0, path: path))
        return true
    }

    /// Why a signal file with status `st` must not be used; nil when it may.
    private static func unusable(_ st: SystemCalls.FileStatus) -> String? {
        if !SystemCalls.isRegular(st) { return "a \(SystemCalls.fileKind(st.st_mode)), not a regular file" }
        if st.st_uid != SystemCalls.effectiveUser { return "a file of uid \(st.st_uid), not of this process's user" }
        if st.st_nlink != 1 { return "a file with \(st.st_nlink) hard links (writing it would change another file)" }
        return nil
    }

    /// Takes the signal file's own lock, waiting at most ``lockPatience``.
    private static func lock(_ fd: Int32, _ mode: FileLock.Mode, path: String) throws(AppGroupError) {
        let deadline = Date().addingTimeInterval(lockPatience)
        var pause: UInt32 = 100
        while true {
            guard let code = SystemCalls.lock(fd, mode.rawValue, wait: false, path: path) else { return }
            guard code == .EAGAIN || code == .EACCES || code == .EWOULDBLOCK || code == .EINTR else {
                throw .systemCall(operation: "fcntl(F_OFD_SETLK)", path: path, errno: code)
            }
            guard Date() < deadline else {
                throw .coordinationTimedOut(path: path, lockFile: path, seconds: lockPatience)
            }
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
    }

    /// One pass over the bytes; only the last ``capacity`` well-formed records are
    /// kept (a writer keeps no more), so a file of crafted lines costs its size once.
    private static func parse(_ data: Data) -> [Record] {
        var kept: [Record] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let record = Record(line: line) else { continue }
            if kept.count == capacity * 4 { kept.removeFirst(capacity * 3) }
            kept.append(record)
        }
        return kept.suffix(capacity)
    }

    private static let allowed: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "% ")
        return set
    }()

    package static func encode(_ path: String) -> String { path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path }

    package static func decode(_ field: Substring) -> String? {
        guard let path = String(field).removingPercentEncoding, path.hasPrefix("/") else { return nil }
        return path
    }
}
extension FileCoordinator {
    /// The signal file through which presenters in other processes hear of
    /// coordinated writes of `item` (in its coordination tree); nil for "/".
    /// For tools and tests: participants never need it.
    package static func changeSignalURL(for item: URL) throws(AppGroupError) -> URL? {
        let path = try FileCoordinator().item(item, resolvingLinks: false).path
        return ChangeSignal.signalPath(forItemPath: path).map { URL(fileURLWithPath: $0) }
    }
}
#endif
