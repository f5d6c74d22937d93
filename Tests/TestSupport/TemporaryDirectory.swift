import Foundation

/// Runs `body` with a fresh, empty directory that is removed afterwards.
@discardableResult
package func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { removeTree(directory) }
    return try body(directory)
}

/// The async form of ``withTemporaryDirectory(_:)``.
@discardableResult
package func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { removeTree(directory) }
    return try await body(directory)
}

private func makeTemporaryDirectory() throws -> URL {
    var template = Array((NSTemporaryDirectory() + "/agc-tests-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mkdtemp failed: errno \(errno)"])
    }
    return URL(fileURLWithPath: String(cString: made), isDirectory: true).standardizedFileURL
}

/// Removes `directory`, first making every directory inside writable (tests make
/// some read-only, or 0000 under a strange umask).
private func removeTree(_ directory: URL) {
    if let walker = FileManager.default.enumerator(atPath: directory.path) {
        for case let name as String in walker {
            let path = directory.appendingPathComponent(name).path
            var st = stat()
            if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { chmod(path, 0o700) }
        }
    }
    try? FileManager.default.removeItem(at: directory)
}
