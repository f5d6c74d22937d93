import AppGroupContainer
import Foundation

/// What stands at a path, seen with lstat(2): a link is reported as a link and
/// never followed, and a failure keeps its errno (a root the user cannot read is
/// "permission denied", not "no group is present").
enum FileKind: Equatable {
    case directory
    case regular(size: Int64)
    case symbolicLink(target: String)
    case other(String)
    case missing
    case unreadable(errno: Errno)

    init(_ url: URL) {
        var st = stat()
        guard lstat(url.path, &st) == 0 else {
            let code = Errno.current
            self = code == .ENOENT || code == .ENOTDIR ? .missing : .unreadable(errno: code)
            return
        }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: self = .directory
        case S_IFREG: self = .regular(size: Int64(st.st_size))
        case S_IFLNK: self = .symbolicLink(target: (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) ?? "?")
        default: self = .other("special file")
        }
    }

    /// "permission denied (EACCES, errno 13)" for an errno.
    static func reason(_ code: Errno) -> String { "\(code.message.lowercased()) (\(code.name.map { $0 + ", " } ?? "")errno \(code.rawValue))" }

    /// The names in the directory at `url` (not following a link there).
    /// - Throws: ``CLIError/failed(_:)`` naming the errno when it cannot be read.
    static func names(in url: URL) throws -> [String] {
        guard let dir = opendir(url.path) else {
            throw CLIError.failed("cannot list \(url.path): \(reason(.current))")
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
