import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// A traced device gives each sandboxed launch a trace directory of its own: no
/// target writes, replaces or forges another process's trace file.
@Suite(.tags(.multiprocess, .hostile), .simulatedDevices, .requiresSandbox(.fail)) struct TraceDirectoryTests {
    /// Finding guarded: every target could write the device's whole `trace/`.
    @Test func aTargetWritesOnlyItsOwnLaunchsTraceDirectory() async throws {
        let device = try SimulatedDevice(name: "TraceDirectories", trace: .whenKept)
        defer { device.remove() }
        let reader = try ReaderTargets()
        let trace = try #require(device.traceDirectory)
        try await device.run(built: "SandboxProbe", ["noop"], as: reader.app).requireSuccess()
        let appDirectory = try #require(try FileManager.default.contentsOfDirectory(atPath: trace.path)
            .first { $0.hasPrefix(reader.app.bundleIdentifier + "-") }, "no launch directory for the app")

        let forged = trace.appendingPathComponent("forged.json").path
        let intoTheApps = trace.appendingPathComponent(appDirectory).appendingPathComponent("1.json").path
        for path in [forged, intoTheApps] {
            let write = try await device.run(built: "SandboxProbe", ["write", path, #"{"traceEvents": []}"#], as: reader.share)
            #expect(write.outputLines == ["error NSCocoaErrorDomain 513 underlying none"], "\(path): \(write)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(path)")
        }
        let remove = try await device.run(built: "SandboxProbe", ["remove", trace.appendingPathComponent(appDirectory).path], as: reader.share)
        #expect(remove.outputLines.first?.hasPrefix("error ") == true, "\(remove)")
        #expect(FileManager.default.fileExists(atPath: trace.appendingPathComponent(appDirectory).path))
    }
}
