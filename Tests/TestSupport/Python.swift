import Foundation

/// python3, for the tests that check the package against Python's plistlib and the
/// locking protocol's Python peer. `.ci/run` installs it; a missing one is a failure
/// of those tests, not a skip.
package enum Python {
    /// The places looked in, in order.
    package static let candidates = ["/usr/bin/python3", "/usr/local/bin/python3"]

    /// The first executable of ``candidates``, or nil.
    package static var executable: URL? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }
}

/// Runs `python3 -c script arguments...` and waits for it (at most `timeout`
/// seconds, then it is killed); returns its exit status and standard error.
/// Standard error goes through a file, not a pipe, so a chatty script cannot block.
package func runPython(_ script: String, _ arguments: [String], timeout: TimeInterval = 120) throws -> (status: Int32, standardError: String) {
    guard let python = Python.executable else {
        return (127, "no python3 at \(Python.candidates.joined(separator: " or "))")
    }
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("python-stderr-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: errors.path, contents: nil) else {
        return (126, "cannot create \(errors.path) for python3's standard error")
    }
    defer { try? FileManager.default.removeItem(at: errors) }
    let errorHandle = try FileHandle(forWritingTo: errors)
    defer { try? errorHandle.close() }
    let process = Process()
    process.executableURL = python
    process.arguments = ["-c", script] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errorHandle
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    if ended.wait(timeout: .now() + timeout) == .timedOut {
        kill(process.processIdentifier, SIGKILL)
        ended.wait()
        return (-1, "python3 killed after \(timeout) s")
    }
    let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
    return (process.terminationStatus, text)
}
