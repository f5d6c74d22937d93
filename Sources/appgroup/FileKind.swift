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
        // Through the package's system-call layer, like every other call it makes.
        let status: FileOperations.Status?
        do {
            status = try FileOperations.status(url.path)
        } catch {
            self = .unreadable(errno: FileOperations.errno(of: error) ?? .EIO)
            return
        }
        guard let status else { self = .missing; return }
        if status.isDirectory {
            self = .directory
        } else if status.isRegular {
            self = .regular(size: status.size)
        } else if status.isSymbolicLink {
            self = .symbolicLink(target: (try? FileOperations.linkTarget(url.path)) ?? "?")
        } else {
            self = .other("special file")
        }
    }

    /// "permission denied (EACCES, errno 13)" for an errno.
    static func reason(_ code: Errno) -> String { "\(code.message.lowercased()) (\(code.name.map { $0 + ", " } ?? "")errno \(code.rawValue))" }

    /// The names in the directory at `url` (not following a link there).
    /// - Throws: ``CLIError/failed(_:)`` naming the errno when it cannot be read.
    static func names(in url: URL) throws -> [String] {
        var names: [String] = []
        do {
            try FileOperations.forEachEntry(in: url.path) { names.append($0) }
        } catch {
            throw CLIError.failed("cannot list \(url.path): \(FileOperations.errno(of: error).map(reason) ?? "\(error)")")
        }
        return names
    }
}
