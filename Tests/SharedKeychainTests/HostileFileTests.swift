import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport

/// Issue 11, findings 5, 10, 12 and 3 (keychain part), each in real KeychainProbe
/// processes on real files.
@Suite("Keychain: hostile files, links, killed writers, exact strings (issue 11)", .tags(.hostile, .multiprocess), .dedicatedThreads)
struct HostileFileTests {
    // MARK: Finding 5: nesting bombs

    @Test("a keychain file or device-state file nested 10,000 deep is errSecInvalidKeychain in a probe, never a signal; the file is kept")
    func deepKeychainAndStateFiles() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let items = box.device.itemsURL(forAccessGroup: Targets.vault)
        try FileManager.default.createDirectory(at: items.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: box.device.recordsDirectory, withIntermediateDirectories: true)
        for url in [items, box.device.stateURL] {
            for bomb in [Self.deepXML(10_000), Self.deepBinary(10_000)] {
                try bomb.write(to: url)
                for arguments in [["read", "--service", "s", "--account", "a"], ["add", "--service", "s", "--account", "a", "--value", "v"]] {
                    let end = try Self.run(arguments, box.environment(Targets.app))
                    #expect(end.exitedNormally, "\(url.lastPathComponent) \(arguments[0]): killed by signal \(end.code)")
                    #expect(end.stdout == "status=-25295", "\(url.lastPathComponent) \(arguments[0]): \(end.stdout) \(end.stderr.prefix(300))")
                    #expect(end.stderr.contains("nested deeper than 512"), "the message says what: \(end.stderr.prefix(300))")
                    #expect(end.stderr.contains(url.path), "and where")
                    #expect(try Data(contentsOf: url) == bomb, "the file is kept as it was, never overwritten")
                }
            }
            try FileManager.default.removeItem(at: url)
        }
    }

    @Test("an entitlements file nested 10,000 or 100,000 deep (XML, binary), or a FIFO, is a typed error in a probe, never a signal or a hang")
    func hostileEntitlementsFiles() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let file = box.root.appendingPathComponent("App.entitlements")
        let cases: [(String, () throws -> Void, String)] = [
            ("XML 10,000 deep", { try Self.deepXML(10_000).write(to: file) }, "nested deeper than 512"),
            // 1.5 MB: refused by size before its nesting is looked at.
            ("XML 100,000 deep", { try Self.deepXML(100_000).write(to: file) }, "over the 1048576-byte limit"),
            ("binary 10,000 deep", { try Self.deepBinary(10_000).write(to: file) }, "nested deeper than 512"),
            ("a FIFO", { #expect(mkfifo(file.path, 0o600) == 0) }, "FIFO"),
        ]
        for (name, plant, mention) in cases {
            try? FileManager.default.removeItem(at: file)
            try plant()
            var environment = box.environment(Targets.app)
            environment[Entitlements.EnvironmentKey.entitlementsFile] = file.path
            let end = try Self.run(["read", "--service", "s", "--account", "a"], environment)
            #expect(!end.timedOut, "\(name): the probe hung")
            #expect(end.exitedNormally, "\(name): killed by signal \(end.code)")
            #expect(end.stdout == "status=-25291", "\(name): \(end.stdout) \(end.stderr.prefix(300))")
            #expect(end.stderr.contains(mention) && end.stderr.contains(file.path), "\(name): \(end.stderr.prefix(400))")
        }
    }

    // MARK: Finding 10: a link at <root>/Keychains

    @Test("reads and writes refuse a symbolic link at <root>/Keychains with errSecIO (-36) and return nothing from outside")
    func linkedKeychainDirectory() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("SharedKeychainTests-outside-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outside) }
        let planted = try KeychainDevice(root: outside, name: box.device.name)
        try Keychain(device: planted, identity: Targets.app).add(Data("planted".utf8), for: GenericPassword(service: "s", account: "a"))
        let before = try Data(contentsOf: planted.itemsURL(forAccessGroup: Targets.vault))
        let listing = try FileManager.default.contentsOfDirectory(atPath: planted.directory.path).sorted()

        let app = box.environment(Targets.app)
        #expect(try Probe.run(["add", "--service", "s", "--account", "a", "--value", "inside"], app).stdout == "status=0")
        let directory = box.device.directory
        try FileManager.default.moveItem(at: directory, to: box.root.appendingPathComponent("Keychains.moved"))
        try FileManager.default.createSymbolicLink(at: directory, withDestinationURL: planted.directory)

        let read = try Self.run(["read", "--service", "s", "--account", "a", "--expect", "planted"], app)
        #expect(read.stdout == "status=-36", "a read through the link: \(read.stdout) \(read.stderr.prefix(300))")
        #expect(read.stderr.contains("symbolic link") && read.stderr.contains(directory.path), "\(read.stderr.prefix(300))")
        let write = try Self.run(["add", "--service", "s", "--account", "b", "--value", "leak"], app)
        #expect(write.stdout == "status=-36", "a write through the link: \(write.stdout)")
        // The device's records, beside the keychain, through a link of their own.
        try FileManager.default.createDirectory(at: planted.recordsDirectory, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: box.device.recordsDirectory)
        try FileManager.default.createSymbolicLink(at: box.device.recordsDirectory, withDestinationURL: planted.recordsDirectory)
        let device = try Self.run(["device", "lock"], app)
        #expect(!device.stdout.contains("state="), "a device-state change through the link: \(device.stdout)")
        #expect(try Data(contentsOf: planted.itemsURL(forAccessGroup: Targets.vault)) == before, "nothing was written outside the root")
        #expect(try FileManager.default.contentsOfDirectory(atPath: planted.directory.path).sorted() == listing, "no file was made outside the root")
        #expect(try FileManager.default.contentsOfDirectory(atPath: planted.recordsDirectory.path).isEmpty, "no record was made outside the root")
    }

    @Test("a Keychains directory of another user is refused (errSecIO); the process's own, left writable by others, is repaired to 0700")
    func keychainDirectoryOwnership() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.environment(Targets.app)
        #expect(try Probe.run(["add", "--service", "s", "--account", "a", "--value", "v"], app).stdout == "status=0")
        let directory = box.device.directory.path
        #expect(chmod(directory, 0o777) == 0)
        #expect(try Probe.run(["read", "--service", "s", "--account", "a", "--expect", "v"], app).stdout == "status=0 match")
        #expect((try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int) == 0o700)
        guard geteuid() == 0 else { return } // chown to another user needs root (as in CI)
        #expect(chown(directory, 65534, 65534) == 0)
        let read = try Self.run(["read", "--service", "s", "--account", "a"], app)
        #expect(read.stdout == "status=-36" && read.stderr.contains("belongs to uid 65534"), "\(read.stdout) \(read.stderr.prefix(300))")
    }

    // MARK: Finding 12: temporaries of killed writers

    @Test("after a SIGKILL storm of keychain writers, one normal operation (a save, or a read in a new process) leaves no temporary behind and every acknowledged item is there", .tags(.killed),
          arguments: ["save", "read"])
    func killedWritersLeaveNoTemporaries(operation: String) throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.environment(Targets.app, extra: ["APP_GROUP_QUIET": "1"])
        var acknowledged = Set<String>()
        var seenTemporaries = 0
        var generator = SystemRandomNumberGenerator()

        // Four rounds of two writers. One is SIGKILLed at a random moment; the other is
        // caught mid-save: stopped (SIGSTOP) at random moments until a temporary of
        // its own is there, then SIGKILLed, so that every run really leaves some.
        var midSave = 0
        for round in 0..<4 {
            let writers = try (0..<2).map { try Probe.start(["add-until-killed", "--prefix", "r\(round)w\($0)", "--size", "4096"], environment: app) }
            for writer in writers { _ = writer.waitForOutput(containing: "acked ", timeout: 30) }
            usleep(UInt32.random(in: 0...50_000, using: &generator))
            writers[0].kill()
            if Self.killMidSave(writers[1].processIdentifier, in: box, using: &generator) { midSave += 1 }
            for writer in writers {
                let output = writer.wait(timeout: 120).standardOutput
                for line in output.split(separator: "\n") where line.hasPrefix("acked ") { acknowledged.insert(String(line.dropFirst(6))) }
            }
            // What a kill leaves must never be readable by anyone else.
            for name in Self.temporaries(box) {
                let attributes = try FileManager.default.attributesOfItem(atPath: box.device.directory(forAccessGroup: Targets.vault).appendingPathComponent(name).path)
                #expect(attributes[.posixPermissions] as? Int == 0o600, "\(name) is \(String(describing: attributes[.posixPermissions]))")
                #expect((attributes[.ownerAccountID] as? NSNumber)?.uint32Value == geteuid())
                seenTemporaries += 1
            }
        }
        let round = 4
        #expect(midSave > 0 && seenTemporaries > 0, "no kill landed mid-save (\(midSave), \(seenTemporaries)): the test did not exercise the cleanup")
        if operation == "save" {
            #expect(try Probe.run(["add", "--service", "s", "--account", "after-the-storm", "--value", "v"], app).stdout == "status=0")
        } else {
            // A reader takes no lock, so it removes only temporaries whose writer's pid
            // is gone and that are a second old (see DirectoryHandle.removeTemporaries).
            usleep(1_100_000)
            #expect(try Probe.run(["count"], app).stdout.hasPrefix("visible="))
        }
        let left = Self.temporaries(box)
        #expect(left == [], "temporaries left after a normal \(operation)")

        let keychain = box.keychain(Targets.app)
        let all = try keychain.copyMatching([RawKey.class: RawKey.genericPassword, RawKey.service: "storm",
                                             RawKey.returnAttributes: true, RawKey.matchLimit: RawKey.matchLimitAll]) as? [[String: Any]] ?? []
        let present = Set(all.compactMap { $0[RawKey.account] as? String })
        #expect(acknowledged.subtracting(present).isEmpty, "acknowledged items lost: \(acknowledged.subtracting(present).sorted().prefix(10))")
        print("keychain kill storm then a \(operation): \(2 * round) writers SIGKILLed, \(acknowledged.count) acknowledged adds all present, \(seenTemporaries) temporaries seen between kills (all 0600, owner's), \(left.count) left after it")
    }

    // MARK: Finding 3 (keychain): attributes compared by code units

    @Test("accounts \"caf\\u{E9}\" and \"cafe\\u{301}\" added by two processes are two items, read and deleted each by its own spelling")
    func canonicallyEquivalentAccountsStayTwo() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.environment(Targets.app)
        let share = box.environment(Targets.share)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(try Probe.run(["add", "--service", "s", "--account", composed, "--group", Targets.vault, "--value", "composed"], app).stdout == "status=0")
        #expect(try Probe.run(["add", "--service", "s", "--account", decomposed, "--group", Targets.vault, "--value", "decomposed"], share).stdout == "status=0",
                "the second spelling is a second item, not errSecDuplicateItem")
        #expect(try Probe.run(["read", "--service", "s", "--account", composed, "--expect", "composed"], share).stdout == "status=0 match")
        #expect(try Probe.run(["read", "--service", "s", "--account", decomposed, "--expect", "decomposed"], app).stdout == "status=0 match")
        #expect(try Probe.run(["delete", "--service", "s", "--account", composed], share).stdout == "status=0")
        #expect(try Probe.run(["read", "--service", "s", "--account", decomposed, "--expect", "decomposed"], app).stdout == "status=0 match")
        #expect(try Probe.run(["read", "--service", "s", "--account", composed], app).stdout == "status=-25300")
        #expect(try box.device.itemCount() == 1)
    }

    // MARK: Support

    /// An XML property list: `depth` nested arrays.
    static func deepXML(_ depth: Int) -> Data {
        Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">"
              + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>").utf8)
    }

    /// A binary property list: object i is an array holding object i + 1.
    static func deepBinary(_ depth: Int) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        for i in 0..<depth {
            offsets.append(UInt64(out.count))
            out += i == depth - 1 ? [0xA0] : [0xA1] + withUnsafeBytes(of: UInt32(i + 1).bigEndian, Array.init)
        }
        let table = out.count
        for offset in offsets { out += withUnsafeBytes(of: offset.bigEndian, Array.init) }
        out += [0, 0, 0, 0, 0, 0, 8, 4]
        for value in [UInt64(depth), 0, UInt64(table)] { out += withUnsafeBytes(of: value.bigEndian, Array.init) }
        return Data(out)
    }

    /// Stops `pid` at random moments until one of its save temporaries is there, then
    /// SIGKILLs it (at once when 10 s pass without one). True when caught mid-save.
    static func killMidSave(_ pid: pid_t, in box: Sandbox, using generator: inout SystemRandomNumberGenerator) -> Bool {
        defer { kill(pid, SIGKILL) }
        let mine = ".tmp-\(pid)-"
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            usleep(UInt32.random(in: 0...3_000, using: &generator))
            guard kill(pid, SIGSTOP) == 0 else { return false }
            // Stopped for sure once /proc says so ("T"), so the listing is not racing it.
            for _ in 0..<1_000 where !isStopped(pid) { usleep(100) }
            if temporaries(box).contains(where: { $0.contains(mine) }) { return true }
            kill(pid, SIGCONT)
        }
        return false
    }

    static func isStopped(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
    }

    static func temporaries(_ box: Sandbox) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: box.device.directory(forAccessGroup: Targets.vault).path)) ?? []).filter(AtomicFile.isTemporaryName).sorted()
    }

    struct End {
        let stdout: String
        let stderr: String
        let exitedNormally: Bool
        let code: Int32
        let timedOut: Bool
    }

    /// Runs a probe with a 30-second liveness deadline (then it is killed).
    static func run(_ arguments: [String], _ environment: [String: String]) throws -> End {
        let outcome = try Probe.start(arguments, environment: environment).wait(timeout: 30)
        let end = ProbeResult(outcome)
        return End(stdout: end.stdout, stderr: end.stderr, exitedNormally: outcome.signal == nil,
                   code: end.status, timedOut: outcome.timedOut)
    }
}

@Suite("Keychain item keys compare exactly", .dedicatedThreads)
struct ExactItemKeyTests {
    @Test("GenericPassword and InternetPassword keys differing only in normalization are different keys")
    func keysAreExact() {
        #expect(GenericPassword(service: "s", account: "caf\u{E9}") != GenericPassword(service: "s", account: "cafe\u{301}"))
        #expect(Set([GenericPassword(service: "s", account: "caf\u{E9}"), GenericPassword(service: "s", account: "cafe\u{301}")]).count == 2)
        #expect(InternetPassword(server: "caf\u{E9}.example", account: "a") != InternetPassword(server: "cafe\u{301}.example", account: "a"))
        #expect(GenericPassword(service: "s", account: "a", accessGroup: "g") == GenericPassword(service: "s", account: "a", accessGroup: "g"))
    }
}
