@testable import AppGroupSimulation
import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// A host executable older than its target's sources is reported
/// (after an edit, `swift test --skip-build` would run the code of the last build).
/// On a package laid out as SwiftPM lays it out, with a real executable file.
@Suite struct StaleExecutableTests {
    /// `<tmp>/Pkg/Package.swift`, `Sources/Tool/main.swift`, `.build/x86_64-unknown-linux-gnu/debug/Tool`
    /// (a copy of /bin/true) and `.build/debug` linking to the configuration's folder.
    static func package() throws -> (root: URL, executable: URL, linked: URL, source: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("StaleExecutable-\(UUID().uuidString)/Pkg")
        let sources = root.appendingPathComponent("Sources/Tool")
        let built = root.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: built, withIntermediateDirectories: true)
        try Data("// swift-tools-version:6.0\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
        let source = sources.appendingPathComponent("main.swift")
        try Data("print(1)\n".utf8).write(to: source)
        let executable = built.appendingPathComponent("Tool")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: "/bin/true"), to: executable)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent(".build/debug").path,
                                                   withDestinationPath: "x86_64-unknown-linux-gnu/debug")
        return (root, executable, root.appendingPathComponent(".build/debug/Tool"), source)
    }

    static func setModified(_ url: URL, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
    }

    @Test func anExecutableOlderThanItsSourcesIsReported() throws {
        let package = try Self.package()
        defer { try? FileManager.default.removeItem(at: package.root.deletingLastPathComponent()) }
        try Self.setModified(package.executable, Date(timeIntervalSinceNow: -3600))
        try Self.setModified(package.source, Date(timeIntervalSinceNow: -60))
        // Found through .build/debug, as builtExecutable(named:) finds it.
        let stale = try #require(SimulatedDevice.staleness(of: package.linked))
        #expect(stale.source.resolvingSymlinksInPath().path == package.source.resolvingSymlinksInPath().path)
        #expect(stale.description.contains("is older than") && stale.description.contains("swift build --build-tests"), "\(stale)")
    }

    @Test func aFreshExecutableIsNot() throws {
        let package = try Self.package()
        defer { try? FileManager.default.removeItem(at: package.root.deletingLastPathComponent()) }
        try Self.setModified(package.source, Date(timeIntervalSinceNow: -3600))
        try Self.setModified(package.executable, Date(timeIntervalSinceNow: -60))
        #expect(SimulatedDevice.staleness(of: package.executable) == nil)
    }

    @Test func anExecutableOutsideAPackageOrWithoutItsFolderIsNotJudged() throws {
        #expect(SimulatedDevice.staleness(of: URL(fileURLWithPath: "/bin/true")) == nil)
        let package = try Self.package()
        defer { try? FileManager.default.removeItem(at: package.root.deletingLastPathComponent()) }
        try Self.setModified(package.executable, Date(timeIntervalSinceNow: -3600))
        try FileManager.default.moveItem(at: package.root.appendingPathComponent("Sources/Tool"),
                                         to: package.root.appendingPathComponent("Sources/Other"))
        #expect(SimulatedDevice.staleness(of: package.executable) == nil)
    }

    @Test func thePackagesOwnProbesAreNotStaleAfterABuild() throws {
        // The executables this test bundle was built with are at least as new as their sources.
        let probe = try SimulatedDevice.requireBuiltExecutable(named: "SandboxProbe")
        #expect(SimulatedDevice.staleness(of: probe) == nil, "\(String(describing: SimulatedDevice.staleness(of: probe)))")
    }
}
