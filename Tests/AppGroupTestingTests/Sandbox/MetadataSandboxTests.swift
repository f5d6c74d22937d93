import AppGroupTesting
import CSandboxProbe
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// What Landlock does not cover, and the device's metadata filter does: a target
/// refused `open()` on another target's file must not change its mode, owner,
/// times or extended attributes either (iOS refuses all four), while its own files
/// keep working.
@Suite(.tags(.multiprocess, .hostile), .simulatedDevices, .requiresSandbox(.fail)) struct MetadataSandboxTests {
    /// The app's secret and its Documents folder, as the test process sees them.
    struct Victim {
        let file: URL
        let documents: URL

        init(device: SimulatedDevice, reader: ReaderTargets) throws {
            let home = try reader.app.dataContainer(on: device)
            documents = home.documents
            file = documents.appendingPathComponent("secret.txt")
            try Data("secret".utf8).write(to: file)
        }
    }

    /// What the calls under test change, read by the test process (lstat, lgetxattr).
    struct Metadata: Equatable, CustomStringConvertible {
        let mode: UInt32, owner: UInt32, group: UInt32
        let modified: Int, modifiedNanoseconds: Int
        let attacked: Bool

        init(_ url: URL) throws {
            var status = stat()
            guard lstat(url.path, &status) == 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]) }
            mode = UInt32(status.st_mode)
            owner = status.st_uid
            group = status.st_gid
            modified = status.st_mtim.tv_sec
            modifiedNanoseconds = status.st_mtim.tv_nsec
            attacked = csp_has_attack_attribute(url.path) == 1
        }

        var description: String { "mode \(String(mode, radix: 8)) owner \(owner):\(group) modified \(modified).\(modifiedNanoseconds) attribute \(attacked)" }
    }

    /// Calls that fail on an O_PATH descriptor whoever's file it is (EBADF from the kernel itself).
    static let descriptorOnlyCalls: Set<String> = ["fchown-opath", "fchmod-opath", "fsetxattr-opath", "fremovexattr-opath"]

    /// Every line is a refusal: EACCES (the sandbox), or EBADF for a call the kernel
    /// refuses on an O_PATH descriptor anyway.
    static func expectRefused(_ outcome: ProcessOutcome, count: Int, _ what: String) {
        #expect(outcome.outputLines.count == count, "\(what): \(outcome)")
        for line in outcome.outputLines {
            let call = String(line.split(separator: " ").first ?? "")
            let allowed = Self.descriptorOnlyCalls.contains(call) ? ["\(call) errno EACCES", "\(call) errno EBADF"] : ["\(call) errno EACCES"]
            #expect(allowed.contains(line), "\(what): \(line)")
        }
    }

    @Test func anotherTargetsFileAndDocumentsKeepTheirMetadata() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let victim = try Victim(device: device, reader: reader)
            _ = try await device.run(built: "SandboxProbe", ["noop"], as: reader.app).requireSuccess()
            for target in [victim.file, victim.documents] {
                let before = try Metadata(target)
                // The share extension cannot open the app's file (Landlock) ...
                let open = try await device.run(built: "SandboxProbe", ["open-errno", victim.file.path], as: reader.share)
                #expect(open.outputLines == ["errno EACCES"], "\(open)")
                // ... and every metadata call on it, by path or O_PATH descriptor, is refused too.
                let attack = try await device.run(built: "SandboxProbe", ["metadata-paths", target.path, "attack"], as: reader.share)
                Self.expectRefused(attack, count: Int(csp_path_call_count()), target.lastPathComponent)
                #expect(try Metadata(target) == before, "\(target.path) changed")
            }
        }
    }

    @Test func aGroupTheTargetDoesNotHoldKeepsItsMetadata() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let container = try device.run(as: reader.app) { try $0.requireContainerURL(forSecurityApplicationGroupIdentifier: ReaderTargets.group) }
            let file = container.appendingPathComponent("articles.json")
            try Data("[]".utf8).write(to: file)
            for target in [file, container] {
                let before = try Metadata(target)
                let attack = try await device.run(built: "SandboxProbe", ["metadata-paths", target.path, "attack"], as: reader.notification)
                Self.expectRefused(attack, count: Int(csp_path_call_count()), target.lastPathComponent)
                #expect(try Metadata(target) == before, "\(target.path) changed")
            }
            // A target holding the group may.
            let member = try await device.run(built: "SandboxProbe", ["metadata-paths", file.path, "own"], as: reader.widget)
            #expect(member.outputLines.contains("chmod ok") && member.outputLines.contains("setxattr ok"), "\(member)")
        }
    }

    @Test func aLinkOfItsOwnToAnotherTargetsFileChangesNothing() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let victim = try Victim(device: device, reader: reader)
            let own = try reader.share.dataContainer(on: device).documents
            let before = try Metadata(victim.file)
            let attack = try await device.run(built: "SandboxProbe", ["metadata-symlink", victim.file.path, own.appendingPathComponent("link").path],
                                              as: reader.share)
            // Calls that follow the link are refused; those that act on the link itself
            // (lchown, lsetxattr, utimensat with AT_SYMLINK_NOFOLLOW) change the
            // target's own link, which is its to change.
            for line in attack.outputLines where !line.hasPrefix("l") && !line.contains("nofollow") {
                #expect(line.hasSuffix("errno EACCES") || line.hasSuffix("errno EBADF"), "\(line)")
            }
            #expect(attack.outputLines.count == Int(csp_path_call_count()), "\(attack)")
            #expect(try Metadata(victim.file) == before)
        }
    }

    @Test func filesItMayOnlyReadKeepTheirMetadataThroughADescriptor() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let seen = values(try await device.run(built: "SandboxProbe", ["identity"], as: reader.share).requireSuccess())
            let infoPlist = URL(fileURLWithPath: try #require(seen["bundleURL"])).appendingPathComponent("Info.plist")
            let (scratch, _) = try device.makeScratchFile(named: "shared.txt", randomBytes: 4)
            for file in [infoPlist, scratch] {
                let before = try Metadata(file)
                let attack = try await device.run(built: "SandboxProbe", ["metadata-descriptors", file.path, "attack"], as: reader.share)
                #expect(attack.outputLines.count == Int(csp_descriptor_call_count()), "\(attack)")
                for line in attack.outputLines { #expect(line.hasSuffix("errno EACCES"), "\(file.lastPathComponent): \(line)") }
                #expect(try Metadata(file) == before, "\(file.path) changed")
            }
        }
    }

    @Test func aPathSwappedBetweenCallsNeverReachesAnotherTarget() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let victim = try Victim(device: device, reader: reader)
            let own = try reader.share.dataContainer(on: device).documents
            let ownFile = own.appendingPathComponent("mine.txt")
            try Data("mine".utf8).write(to: ownFile)
            let before = try Metadata(victim.file)
            for _ in 0..<3 {
                let race = try await device.run(built: "SandboxProbe", ["metadata-race", ownFile.path, victim.file.path, own.appendingPathComponent("swapped").path, "400"],
                                                as: reader.share, timeout: 300)
                let line = try #require(race.outputLines.first, "\(race)")
                // Both kinds of call happened: the race had something to win.
                let counts = line.split(separator: " ").compactMap { Int($0) }
                #expect(line.hasPrefix("race succeeded ") && counts.count == 3 && counts[0] > 0 && counts[1] > 0, "\(race)")
                #expect(try Metadata(victim.file) == before, "after \(line)")
            }
        }
    }

    @Test func itsOwnFilesTakeEveryCallAndFoundationsAttributes() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let own = try reader.share.dataContainer(on: device).documents
            let file = own.appendingPathComponent("mine.txt")
            try Data("mine".utf8).write(to: file)
            for target in [file, own] {
                let calls = try await device.run(built: "SandboxProbe", ["metadata-paths", target.path, "own"], as: reader.share)
                #expect(calls.outputLines.count == Int(csp_path_call_count()), "\(calls)")
                for line in calls.outputLines {
                    let call = String(line.split(separator: " ").first ?? "")
                    if Self.descriptorOnlyCalls.contains(call) { continue }
                    #expect(line == "\(call) ok", "\(target.lastPathComponent): \(line)")
                }
                let after = try Metadata(target)
                #expect(after.mode & 0o7777 == 0o777 && after.modified == Int(CSP_SECONDS), "\(after)")
            }
            let descriptors = try await device.run(built: "SandboxProbe", ["metadata-descriptors", file.path, "own"], as: reader.share)
            #expect(descriptors.outputLines == (0..<csp_descriptor_call_count()).map { String(cString: csp_descriptor_call_name($0)) + " ok" },
                    "\(descriptors)")
            // Foundation's calls answer in the sandbox as they answer without one.
            let foundation = try await device.run(built: "SandboxProbe", ["foundation-metadata", own.path], as: reader.share)
            let bare = own.appendingPathComponent("bare", isDirectory: true)
            try FileManager.default.createDirectory(at: bare, withIntermediateDirectories: true)
            let unenforced = try await device.run(built: "SandboxProbe", ["foundation-metadata", bare.path], as: reader.share, sandbox: .unenforced)
            #expect(foundation.outputLines.count == 5 && foundation.outputLines.allSatisfy { $0.contains(" ok") }, "\(foundation)")
            #expect(foundation.outputLines == unenforced.outputLines, "\(foundation) against \(unenforced)")
        }
    }
}

/// Each target's supervisor thread ends with the target: a process that launched
/// twenty keeps none (counted in a process of its own, so that other tests'
/// targets do not count).
@Suite(.tags(.multiprocess), .requiresSandbox(.fail)) struct MetadataSupervisorLifetimeTests {
    @Test func noSupervisorOutlivesItsTarget() async throws {
        let probe = try SimulatedDevice.requireBuiltExecutable(named: "SandboxProbe")
        let outcome = try await LaunchedProcess.run(probe, ["supervisors-after", "20"], environment: ProcessInfo.processInfo.environment)
        #expect(outcome.outputLines == ["supervisors 0"], "\(outcome)")
    }
}

/// The fallback, on a kernel without seccomp user notification (played with the
/// guard's task-local override): calls naming a path are refused everywhere.
@Suite(.tags(.multiprocess, .hostile), .simulatedDevices, .requiresSandbox(.fail)) struct MetadataFallbackTests {
    @Test func withoutUserNotificationEveryPathCallIsRefused() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let victim = try MetadataSandboxTests.Victim(device: device, reader: reader)
            let own = try reader.share.dataContainer(on: device).documents.appendingPathComponent("mine.txt")
            try Data("mine".utf8).write(to: own)
            let before = try MetadataSandboxTests.Metadata(victim.file)
            let ownBefore = try MetadataSandboxTests.Metadata(own)
            try await MetadataSandbox.$override.withValue(.refused) {
                let attack = try await device.run(built: "SandboxProbe", ["metadata-paths", victim.file.path, "attack"], as: reader.share)
                MetadataSandboxTests.expectRefused(attack, count: Int(csp_path_call_count()), "the app's file")
                let mine = try await device.run(built: "SandboxProbe", ["metadata-paths", own.path, "own"], as: reader.share)
                MetadataSandboxTests.expectRefused(mine, count: Int(csp_path_call_count()), "its own file, refused too")
                #expect(try MetadataSandboxTests.Metadata(own) == ownBefore)
                // On an open descriptor of its own file the calls still run.
                let descriptors = try await device.run(built: "SandboxProbe", ["metadata-descriptors", own.path, "own"], as: reader.share)
                #expect(descriptors.outputLines.contains("fchmod ok"), "\(descriptors)")
            }
            #expect(try MetadataSandboxTests.Metadata(victim.file) == before)
        }
    }
}
