import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// Item 1 of the targets-as-apps work: each target's own data container, seen by a
/// spawned target's Foundation as its home.
@Suite(.tags(.multiprocess), .simulatedDevices) struct DataContainerTests {
    @Test func foundationAnswersInsideTheTargetsOwnContainer() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let home = try reader.share.dataContainer(on: device)
            let seen = values(try await device.run(built: "SandboxProbe", ["identity"], as: reader.share).requireSuccess())
            #expect(seen["NSHomeDirectory"] == home.home.path)
            #expect(seen["homeDirectoryForCurrentUser"] == home.home.path)
            #expect(seen["documentDirectory"] == home.documents.path)
            #expect(seen["cachesDirectory"] == home.caches.path)
            #expect(seen["applicationSupportDirectory"] == home.applicationSupport.path)
            #expect(seen["temporaryDirectory"] == home.temporary.path)
            #expect(seen["NSTemporaryDirectory"] == home.temporary.path + "/")
            #expect(seen["currentDirectoryPath"] == "/")
            for sub in DataContainer.subdirectories {
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.fileExists(atPath: home.home.appendingPathComponent(sub).path, isDirectory: &isDirectory) && isDirectory.boolValue, "\(sub)")
            }
            // UserDefaults.standard (Foundation's own, in a process that does not import SharedDefaults).
            try await device.run(built: "SandboxProbe", ["defaults-set", "lastOpened", "article-7"], as: reader.share).requireSuccess()
            #expect(FileManager.default.fileExists(atPath: home.preferences.appendingPathComponent("com.example.reader.share.plist").path))
            let read = try await device.run(built: "SandboxProbe", ["defaults-get", "lastOpened"], as: reader.share).requireSuccess()
            #expect(read.outputLines == ["value article-7"])
            let other = try await device.run(built: "SandboxProbe", ["defaults-get", "lastOpened"], as: reader.app).requireSuccess()
            #expect(other.outputLines == ["value nil"], "the app reads the extension's standard defaults")
        }
    }

    /// Two instances of one extension launched at once make its bundle, container and
    /// keychain folder together: neither may fail because the other made a directory
    /// first (seen once in the suite as "file exists" from two `device.run`s side by side).
    @Test func launchesSideBySideMakeOneContainer() async throws {
        let reader = try ReaderTargets()
        for _ in 0..<30 {
            try SimulatedDevice.with { device in
                let failures = Tally<[String]>([])
                DispatchQueue.concurrentPerform(iterations: 32) { _ in
                    do { _ = try reader.share.dataContainer(on: device) } catch { failures.update { $0.append("\(error)") } }
                }
                #expect(failures.current == [])
            }
        }
        // The whole launch: bundle, container, sandbox profile, process.
        try await SimulatedDevice.with { device in
            try await withThrowingTaskGroup(of: ProcessOutcome.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await device.run(built: "SandboxProbe", ["identity"], as: reader.share).requireSuccess() }
                }
                for try await outcome in group { #expect(outcome.succeeded) }
            }
        }
    }

    @Test(.requiresSandbox(.fail)) func aTargetsDocumentsAreItsOwn() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let written = try await device.run(built: "SandboxProbe", ["write-documents", "articles.json", "[1]"], as: reader.share).requireSuccess()
            let shareDocuments = try reader.share.dataContainer(on: device).documents
            #expect(written.outputLines == ["ok " + shareDocuments.appendingPathComponent("articles.json").path])
            // The app's Documents is another folder, and the share extension's is out of its reach.
            let appDocuments = try reader.app.dataContainer(on: device).documents
            #expect(appDocuments != shareDocuments)
            let own = try await device.run(built: "SandboxProbe", ["list", appDocuments.path], as: reader.app).requireSuccess()
            #expect(own.outputLines == ["ok"], "the app's own Documents is empty")
            let read = try await device.run(built: "SandboxProbe", ["read", shareDocuments.appendingPathComponent("articles.json").path], as: reader.app)
            #expect(read.outputLines == ["error NSCocoaErrorDomain 257 underlying none"], "\(read)")
            let listed = try await device.run(built: "SandboxProbe", ["list", shareDocuments.path], as: reader.app)
            #expect(listed.outputLines.first?.hasPrefix("error NSCocoaErrorDomain 257") == true, "\(listed)")
        }
    }

    /// The machine's real home (the password database's, as Foundation would fall
    /// back to) is listed before and after targets that use every user directory,
    /// unenforced, so that it is the home, not the sandbox, that keeps them out.
    @Test func theMachinesRealHomeIsUntouched() async throws {
        let realHome = try #require(getpwuid(getuid())).pointee.pw_dir.map { String(cString: $0) } ?? "/root"
        let before = Self.listing(realHome)
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            for target in [reader.app, reader.share, reader.widget] {
                for command in [["write-documents", "articles.json", "[]"], ["write-temporary", "draft.txt", "x"],
                                ["defaults-set", "k", "v"], ["identity"]] {
                    try await device.run(built: "SandboxProbe", command, as: target, sandbox: .unenforced).requireSuccess()
                }
            }
        }
        let added = Self.listing(realHome).subtracting(before)
        let ours = added.filter { $0.contains("com.example.reader") || $0.hasSuffix("/Documents") || $0.contains("articles.json")
            || $0.contains("draft.txt") || $0.hasSuffix("/Library") }
        #expect(ours.isEmpty, "the targets wrote into the machine's home: \(ours.sorted())")
        #expect(!before.isEmpty, "nothing listed at \(realHome)")
    }

    /// Entries of `home` two levels deep, and of the directories Foundation would use there.
    static func listing(_ home: String) -> Set<String> {
        var entries: Set<String> = []
        let manager = FileManager.default
        for top in (try? manager.contentsOfDirectory(atPath: home)) ?? [] {
            entries.insert(home + "/" + top)
            for second in (try? manager.contentsOfDirectory(atPath: home + "/" + top)) ?? [] {
                entries.insert(home + "/" + top + "/" + second)
            }
        }
        for deep in [".local/share", ".config", ".cache", "Documents", "Library"] {
            for entry in (try? manager.contentsOfDirectory(atPath: home + "/" + deep)) ?? [] { entries.insert(home + "/" + deep + "/" + entry) }
        }
        return entries
    }
}
