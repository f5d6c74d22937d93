#if !canImport(Darwin)
import Foundation

/// The cross-process signal of coordinated changes: how a write coordinated by
/// NSFileCoordinator in one process reaches presenters in another.
///
/// A presented item `<dir>/<name>` has a signal file `<dir>/.<name>.changes`,
/// created when a presenter of it is registered. A coordinated write of an item,
/// before its locks are released, appends a record to the signal file of the item
/// and of each directory above it that has one (no signal file: nobody presents
/// it, nothing is written). The file keeps the last ``capacity`` records, one per
/// line: `<writer> <sequence> <presenter> <kind> <path> [<new path>]`, where
/// `writer` is a random token of the writing process, `presenter` the presenter of
/// the writing coordinator (0 for none; it is not told of its own change), and the
/// paths are percent-encoded. Presenting processes watch the directory with
/// inotify (``DirectoryWatcher``) and read the records they have not seen.
/// Uncoordinated writes never touch a signal file, so they are not reported, as
/// on Apple platforms. The file is read and written under its own advisory lock.
enum ChangeSignal {
    /// Records kept per signal file; a reader that fell further behind reports a
    /// change rather than lose one.
    static let capacity = 16
    /// Larger signal files are not read (a crafted or corrupt file).
    static let sizeLimit: Int64 = 1 << 20

    enum Kind: String, Sendable {
        case change
        case move
    }

    struct Record: Sendable, Hashable {
        let writer: String
        let sequence: UInt64
        let presenter: UInt
        let kind: Kind
        let path: String
        let newPath: String?

        var id: String { writer + " " + String(sequence) }

        var line: String {
            var fields = [writer, String(sequence), String(presenter), kind.rawValue, ChangeSignal.encode(path)]
            if let newPath { fields.append(ChangeSignal.encode(newPath)) }
            return fields.joined(separator: " ")
        }

        /// Nil for a line this code did not write (blank, padding, or crafted).
        init?(line: Substring) {
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

        init(writer: String, sequence: UInt64, presenter: UInt, kind: Kind, path: String, newPath: String?) {
            (self.writer, self.sequence, self.presenter, self.kind, self.path, self.newPath) = (writer, sequence, presenter, kind, path, newPath)
        }
    }

    /// This process's writer token: random, so a reused process id is never taken
    /// for an earlier process.
    static let writer = String(UInt64.random(in: 1...UInt64.max), radix: 16)
    private static let sequence = Locked<UInt64>(0)

    /// The signal file of the item at the standardized absolute `itemPath`; nil for "/".
    static func signalPath(forItemPath itemPath: String) -> String? {
        guard let slash = itemPath.lastIndex(of: "/") else { return nil }
        let name = String(itemPath[itemPath.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        let directory = slash == itemPath.startIndex ? "" : String(itemPath[..<slash])
        return directory + "/" + FileNames.fitted("." + name + ".changes", keepingSuffix: ".changes")
    }

    /// Creates the signal file of `itemPath` if it is missing (0600, never through
    /// a symbolic link).
    static func create(forItemPath itemPath: String) throws {
        guard let path = signalPath(forItemPath: itemPath) else {
            throw AppGroupError.unsafePath(path: itemPath, problem: "the root directory cannot be presented; present a file or directory below it")
        }
        let fd = try Sys.open(path, O_RDONLY | O_CREAT | O_NOFOLLOW)
        Sys.close(fd)
    }

    /// Appends a record of a coordinated `kind` change of `itemPath` to the signal
    /// files of the item and of every directory above it that has one. Called under
    /// the write's locks. Failures are reported as diagnostics: the write itself
    /// succeeded, only the notice of it is missing.
    static func post(_ kind: Kind, itemPath: String, newPath: String? = nil, excluding presenter: UInt) {
        let number = sequence.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let record = Record(writer: writer, sequence: number, presenter: presenter, kind: kind, path: itemPath, newPath: newPath)
        var current = itemPath
        while let signal = signalPath(forItemPath: current) {
            do {
                try append(record, to: signal)
            } catch {
                Diagnostics.warn("NSFileCoordinator: presenters of \(AppGroupError.quote(current)) in other processes were not told of a change: \(error)")
            }
            guard let slash = current.lastIndex(of: "/"), slash != current.startIndex else { break }
            current = String(current[..<slash])
        }
    }

    /// The records in the signal file at `path`; nil when it cannot be read (then
    /// the reader assumes a change).
    static func records(at path: String) -> [Record]? {
        do {
            let fd = try Sys.open(path, O_RDONLY | O_NOFOLLOW)
            defer { Sys.close(fd) }
            _ = Sys.lock(fd, FileLock.Mode.shared.rawValue, wait: true, path: path)
            return parse(try Sys.readAll(fd, path: path, sizeHint: 4096, limit: sizeLimit))
        } catch {
            return nil
        }
    }

    private static func append(_ record: Record, to path: String) throws {
        let fd: Int32
        do {
            fd = try Sys.open(path, O_RDWR | O_NOFOLLOW)
        } catch AppGroupError.systemCall(_, _, let code) where code == .ENOENT || code == .ENOTDIR || code == .EACCES {
            return // nobody presents this item (or it cannot be presented from here)
        }
        defer { Sys.close(fd) }
        if let code = Sys.lock(fd, FileLock.Mode.exclusive.rawValue, wait: true, path: path) {
            throw AppGroupError.systemCall(operation: "fcntl(F_OFD_SETLKW)", path: path, errno: code)
        }
        let old = (try? Sys.readAll(fd, path: path, sizeHint: 4096, limit: sizeLimit)) ?? Data()
        let kept = (parse(old).suffix(capacity - 1) + [record]).map(\.line).joined(separator: "\n") + "\n"
        var bytes = Data(kept.utf8)
        // Rewritten in place; newlines pad over whatever a longer old text left.
        if bytes.count < old.count { bytes.append(Data(repeating: UInt8(ascii: "\n"), count: old.count - bytes.count)) }
        try bytes.withUnsafeBytes { try Sys.writeAll(fd, $0, at: 0, path: path) }
    }

    private static func parse(_ data: Data) -> [Record] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Record(line: $0) }
    }

    private static let allowed: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "% ")
        return set
    }()

    static func encode(_ path: String) -> String { path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path }

    static func decode(_ field: Substring) -> String? {
        guard let path = String(field).removingPercentEncoding, path.hasPrefix("/") else { return nil }
        return path
    }
}
#endif
