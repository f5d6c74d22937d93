import Foundation

/// Shared state of one benchmark run: the scale, a scratch directory, and child
/// processes (copies of this executable in a child role).
final class BenchmarkRun {
    let scale: Double
    let root: URL

    init(scale: Double) throws {
        self.scale = scale
        root = FileManager.default.temporaryDirectory.appendingPathComponent("appgroup-bench-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// `base` scaled, at least 1.
    func count(_ base: Int) -> Int { max(1, Int(Double(base) * scale)) }

    /// A fresh directory under the run's scratch root.
    func scratch(_ name: String) throws -> URL {
        let url = root.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes every dirty page to disk (sync(2)). Called after a fill written without
    /// fsync: otherwise the first durable operations timed pay for its writeback (an
    /// ext4 journal commit flushes the data of every file in it).
    func settleDisk() { sync() }

    /// Starts this executable with `arguments` (stdout captured).
    func spawnSelf(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = Pipe()
        try process.run()
        return process
    }

    /// The next line `process` writes to its standard output (without the newline);
    /// nil at end of file. Reads a byte at a time, so nothing after the line is consumed.
    func readLine(_ process: Process) -> String? {
        guard let handle = (process.standardOutput as? Pipe)?.fileHandleForReading else { return nil }
        var bytes: [UInt8] = []
        while let byte = try? handle.read(upToCount: 1), let first = byte.first {
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Waits for `process`; throws unless it exited 0. Returns its standard output.
    @discardableResult
    func wait(_ process: Process) throws -> String {
        let output = (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError.child("\(process.arguments?.joined(separator: " ") ?? "") exited \(process.terminationStatus)")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
