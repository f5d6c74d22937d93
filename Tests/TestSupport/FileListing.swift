import Foundation

/// The permission bits of the file at `path` (not following a link), or nil.
package func permissions(_ path: String) -> mode_t? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return st.st_mode & 0o7777
}

/// The names in `directory`, sorted; empty when it cannot be listed.
package func names(in directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

/// The entries of a container root other than the package's coordination tree
/// (`.coordination`, which holds its lock and signal files), sorted.
package func containerNames(in root: URL) -> [String] {
    names(in: root).filter { $0 != ".coordination" }
}

/// Every entry under `directory` (recursively), with its lstat mode.
package func walk(_ directory: URL) -> [(path: String, mode: mode_t)] {
    var result: [(String, mode_t)] = []
    guard let names = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] else { return [] }
    for name in names {
        var st = stat()
        let path = directory.appendingPathComponent(name).path
        if lstat(path, &st) == 0 { result.append((path, st.st_mode)) }
    }
    return result
}
