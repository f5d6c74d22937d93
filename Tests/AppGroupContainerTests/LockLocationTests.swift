import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// Where a lock lives is decided again at every lock: a writer that started
/// before a nearer coordination tree appeared (or before its tree went) keeps
/// excluding the writers that started after, so no increment is lost.
extension MultiProcess {
    @Suite("Lock location", .tags(.multiprocess))
    struct LockLocation {
        static let group = "group.ai.systenics.notes"

        /// How the item's coordination tree changes while the first writer runs.
        enum Change: String, CaseIterable, CustomTestStringConvertible, Sendable {
            /// A process resolves a container root that lies inside another root's
            /// group container and already holds the item.
            case nestedRootResolved = "a process resolves a container root nested in another root's group container"
            /// Another program makes `.coordination` in a directory between the item and its tree.
            case nearerTreeMade = "another program makes a nearer .coordination"
            /// Another program makes a device root above an item locked in the private tree.
            case rootMadeAbovePrivateItem = "another program makes a device root above an item of the private tree"
            /// Another program removes the nearer tree: its items go back to the outer one.
            case nearerTreeRemoved = "another program removes the nearer .coordination"

            var testDescription: String { rawValue }
        }

        @Test("a writer running while the item's coordination tree changes and writers started after it exclude each other: no increment lost",
              arguments: Change.allCases)
        func writersExcludeAcrossATreeChange(change: Change) throws {
            try SimulatedDevice.with { device in
                let identity = try shareExtension()
                let outer = try ContainerResolver(root: device.root, entitlements: identity)
                    .requireContainerURL(forSecurityApplicationGroupIdentifier: Self.group)
                // The inner root lies in the outer root's group container (or, for the
                // private tree, in the device's scratch... which has a tree of its own,
                // so in a directory under no device root at all).
                let base: URL
                if change == .rootMadeAbovePrivateItem {
                    base = try Self.directoryUnderNoRoot()
                } else {
                    base = outer.appendingPathComponent("Library/Caches/inner", isDirectory: true)
                }
                defer { if change == .rootMadeAbovePrivateItem { try? FileManager.default.removeItem(at: base) } }
                let preferences = base.appendingPathComponent("\(Self.group)/Library/Preferences", isDirectory: true)
                try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
                let item = preferences.appendingPathComponent("counter")
                let nearer = base.appendingPathComponent(".coordination", isDirectory: true)
                if change == .nearerTreeRemoved {
                    try FileManager.default.createDirectory(at: nearer, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                }
                let before = try Probe.run(["lock-path", "--file", item.path]).outputLines
                let stop = device.scratch.appendingPathComponent("stop")
                try withProbes { probes in
                    let first = try Probe.start(["increment-until", "--file", item.path, "--until", stop.path])
                    probes.append(first)
                    try #require(first.waitForLine("started", timeout: 60), "stderr: \(first.standardError)")

                    switch change {
                    case .nestedRootResolved:
                        let environment = identity.environment.merging([ContainerResolver.rootEnvironmentKey: base.path]) { $1 }
                        let resolved = try Probe.run(["resolve", "--group", Self.group], environment: environment)
                        #expect(resolved.outputLines == [base.appendingPathComponent(Self.group).path])
                    case .nearerTreeMade, .rootMadeAbovePrivateItem:
                        // Made while holding the item's lock where the first writer takes
                        // it, as a careful program would: no increment is in flight.
                        try FileCoordinator().coordinate(writingItemAt: item) { _ in
                            try FileManager.default.createDirectory(at: nearer, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                        }
                    case .nearerTreeRemoved:
                        try FileCoordinator().coordinate(writingItemAt: item) { _ in
                            try FileManager.default.removeItem(at: nearer)
                        }
                    }
                    let after = try Probe.run(["lock-path", "--file", item.path]).outputLines
                    if change == .nestedRootResolved {
                        #expect(after == before, "a process that knows only the path now locks elsewhere")
                    } else {
                        #expect(after != before, "the change did not move the item's lock file: the test proves nothing")
                    }

                    let later = try (0..<2).map { _ in try Probe.start(["increment", "--file", item.path, "--count", "600"]) }
                    probes += later
                    for writer in later {
                        let end = writer.wait(timeout: 300)
                        #expect(end.status == 0 && !end.timedOut, "\(end)")
                    }
                    // Only now does the first writer stop: it ran through all of the later ones.
                    #expect(FileManager.default.createFile(atPath: stop.path, contents: Data()))
                    let end = first.wait(timeout: 120)
                    #expect(end.status == 0 && !end.timedOut, "\(end)")
                    let done = end.outputLines.last.flatMap { $0.hasPrefix("done ") ? Int($0.dropFirst(5)) : nil }
                    let total = try #require(done, "the first writer did not say how many it did: \(end)")
                    #expect(counter(item) == total + 1200, "the first writer made \(total) increments, the later two 1,200")
                }
            }
        }

        @Test("the command the 0.1.x refusal gives removes the old lock files and spares the share inbox's own")
        func refusalCommandSparesTheInbox() throws {
            try withTemporaryDirectory { root in
                let container = root.appendingPathComponent("group.ai.systenics.notes", isDirectory: true)
                let preferences = container.appendingPathComponent("Library/Preferences", isDirectory: true)
                let inbox = container.appendingPathComponent("Library/Application Support/Inbox", isDirectory: true)
                for directory in [preferences, inbox.appendingPathComponent("Claims"), inbox.appendingPathComponent("Journal")] {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                }
                let old = preferences.appendingPathComponent(".counter.lock")
                let kept = [inbox.appendingPathComponent("Claims/.1234-5678.lock"), inbox.appendingPathComponent("Journal/.consumer.lock")]
                for file in [old] + kept { #expect(FileManager.default.createFile(atPath: file.path, contents: nil)) }
                let message = AppGroupError.olderLockingProtocol(path: preferences.appendingPathComponent("counter").path, lockFile: old.path).description
                let command = try #require(message.split(separator: "`").first { $0.hasPrefix("find ") }, "\(message)")
                let shell = try LaunchedProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", command.replacingOccurrences(of: "<root>", with: "'\(root.path)'")])
                #expect(shell.status == 0, "\(shell)")
                #expect(!FileManager.default.fileExists(atPath: old.path), "the version-1 lock file is still there")
                for file in kept { #expect(FileManager.default.fileExists(atPath: file.path), "\(file.path) was deleted") }
            }
        }

        /// A fresh directory that no device root holds: in the system's temporary
        /// directory (a device keeps its scratch in a tree of its own).
        static func directoryUnderNoRoot() throws -> URL {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lock-location-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            return directory
        }
    }
}
