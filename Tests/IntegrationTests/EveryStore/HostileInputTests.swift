import AppGroupTesting
import AppGroupContainer
import Foundation
import SharedDefaults
import SharedKeychain
import Testing
import ShareInbox
import TestSupport
import DeviceTestSupport

/// One hostile input: what it is, the call that must refuse it, and words its
/// error message must contain (what is wrong and where).
struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let mentions: [String]
    let attempt: @Sendable (Sandbox) throws -> Void
    /// The module's error type the refusal must be.
    let expected: ExpectedError

    enum ExpectedError: Sendable { case appGroup, sharedDefaults, keychain, shareInbox }

    var testDescription: String { name }

    init(_ name: String, _ expected: ExpectedError, mentions: [String], _ attempt: @escaping @Sendable (Sandbox) throws -> Void) {
        self.name = name
        self.expected = expected
        self.mentions = mentions
        self.attempt = attempt
    }
}

/// Opens the group's suite as the app.
func suite(_ sandbox: Sandbox, _ name: String = Sandbox.group) throws -> SharedDefaults {
    try SharedDefaults(requiringSuiteName: name, resolver: sandbox.resolver())
}

/// Writes `bytes` as the group suite's file, then reads the suite.
func readSuite(_ sandbox: Sandbox, _ place: (URL) throws -> Void) throws {
    let defaults = try suite(sandbox)
    try place(defaults.fileURL)
    _ = try defaults.persistentDomain()
}

func readEntitlements(_ sandbox: Sandbox, _ text: String, bundle: String? = "ai.systenics.app") throws {
    let file = sandbox.scratch.appendingPathComponent("App.entitlements")
    try Data(text.utf8).write(to: file)
    _ = try Entitlements(contentsOf: file, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: bundle)
}

func inbox(_ sandbox: Sandbox) throws -> ShareInbox {
    try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
}

func attachment(_ sandbox: Sandbox, named name: String) throws -> SharedItem {
    let file = sandbox.scratch.appendingPathComponent("source.txt")
    try Data("x".utf8).write(to: file)
    return SharedItem(title: "t", attachments: [.init(fileURL: file, name: name)])
}

let hostileCases: [HostileCase] = [
    // Group identifiers.
    HostileCase("group identifier: empty", .appGroup, mentions: ["empty"]) { _ = try $0.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: "") },
    HostileCase("group identifier: ../ escape", .appGroup, mentions: ["group.../../etc"]) { _ = try $0.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: "group.../../etc") },
    HostileCase("group identifier: NUL inside", .appGroup, mentions: ["NUL"]) { _ = try $0.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: "group.a\0b") },
    HostileCase("group identifier: 300 bytes", .appGroup, mentions: ["255"]) { _ = try $0.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: "group." + String(repeating: "a", count: 300)) },
    HostileCase("group identifier: no prefix", .appGroup, mentions: ["group."]) { _ = try $0.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: "com.example.notes") },
    HostileCase("group identifier: whitespace", .appGroup, mentions: ["whitespace"]) { _ = try $0.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: "group.a b") },
    HostileCase("group identifier: not held", .appGroup, mentions: ["group.ai.systenics.elsewhere", "not entitled"]) { _ = try $0.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.elsewhere") },
    // Suite names.
    HostileCase("suite name: empty", .sharedDefaults, mentions: ["empty"]) { _ = try suite($0, "") },
    HostileCase("suite name: NSGlobalDomain", .sharedDefaults, mentions: ["NSGlobalDomain"]) { _ = try suite($0, "NSGlobalDomain") },
    HostileCase("suite name: ../ path", .sharedDefaults, mentions: ["'/'"]) { _ = try suite($0, "../../outside") },
    HostileCase("suite name: NUL inside", .sharedDefaults, mentions: ["NUL"]) { _ = try suite($0, "a\0b") },
    HostileCase("suite name: leading dot", .sharedDefaults, mentions: ["'.'"]) { _ = try suite($0, ".hidden") },
    HostileCase("suite name: 1000 bytes", .sharedDefaults, mentions: ["200 bytes"]) { _ = try suite($0, String(repeating: "s", count: 1000)) },
    HostileCase("suite name: malformed group", .sharedDefaults, mentions: ["group..x"]) { _ = try suite($0, "group..x") },
    // Keys.
    HostileCase("key: empty", .sharedDefaults, mentions: ["key", "empty"]) { try suite($0).save(1, forKey: "") },
    HostileCase("key: 1 MB long", .sharedDefaults, mentions: ["key", "bytes"]) { try suite($0).save(1, forKey: String(repeating: "k", count: 1 << 20)) },
    HostileCase("key: NUL inside", .sharedDefaults, mentions: ["key", "NUL"]) { try suite($0).save(1, forKey: "a\0b") },
    HostileCase("key: NUL inside, through update", .sharedDefaults, mentions: ["key", "NUL"]) { try suite($0).update(forKey: "a\0b") { _ in 1 } },
    // Values.
    HostileCase("value: not a property list", .sharedDefaults, mentions: ["NotAPlist", "k"]) { try suite($0).save(NotAPlist(), forKey: "k") },
    HostileCase("value: non-plist nested in a dictionary", .sharedDefaults, mentions: ["k.inner[1]", "NotAPlist"]) { try suite($0).save(["inner": [1, NotAPlist()]], forKey: "k") },
    HostileCase("value: 5 MB of data", .sharedDefaults, mentions: ["4194304"]) { try suite($0).save(Data(count: 5 << 20), forKey: "k") },
    HostileCase("value: nested 1000 levels", .sharedDefaults, mentions: ["deeper"]) { sandbox in
        var value: Any = 1
        for _ in 0..<1000 { value = [value] }
        try suite(sandbox).save(value, forKey: "k")
    },
    HostileCase("value: non-string dictionary key", .sharedDefaults, mentions: ["dictionary key"]) { try suite($0).save([1: "one"] as [AnyHashable: Any], forKey: "k") },
    // Inbox item and payload names.
    HostileCase("inbox name: ../", .shareInbox, mentions: ["inbox name", "'/'"]) { _ = try ShareInbox(groupIdentifier: Sandbox.group, resolver: $0.resolver(), name: "../Preferences") },
    HostileCase("inbox name: absolute path", .shareInbox, mentions: ["inbox name", "'/'"]) { _ = try ShareInbox(groupIdentifier: Sandbox.group, resolver: $0.resolver(), name: "/etc") },
    HostileCase("inbox name: NUL", .shareInbox, mentions: ["inbox name", "NUL"]) { _ = try ShareInbox(groupIdentifier: Sandbox.group, resolver: $0.resolver(), name: "In\0box") },
    HostileCase("attachment name: ../", .shareInbox, mentions: ["attachments[0].name", "'/'"]) { try inbox($0).enqueue(try attachment($0, named: "../../escape")) },
    HostileCase("attachment name: absolute path", .shareInbox, mentions: ["attachments[0].name", "'/'"]) { try inbox($0).enqueue(try attachment($0, named: "/etc/passwd")) },
    HostileCase("attachment name: NUL", .shareInbox, mentions: ["attachments[0].name", "NUL"]) { try inbox($0).enqueue(try attachment($0, named: "a\0b")) },
    HostileCase("attachment name: ..", .shareInbox, mentions: ["attachments[0].name"]) { try inbox($0).enqueue(try attachment($0, named: "..")) },
    HostileCase("attachment source: not a file URL", .shareInbox, mentions: ["attachments[0]", "not a file URL"]) { try inbox($0).enqueue(SharedItem(attachments: [.init(fileURL: URL(string: "https://example.com/x")!)])) },
    HostileCase("attachment source: a path through ..", .shareInbox, mentions: ["attachments[0]", "'..'"]) { try inbox($0).enqueue(SharedItem(attachments: [.init(fileURL: URL(fileURLWithPath: $0.scratch.path + "/../outside/x"))])) },
    HostileCase("attachment source: a directory", .shareInbox, mentions: ["directory"]) { try inbox($0).enqueue(SharedItem(attachments: [.init(fileURL: $0.scratch)])) },
    HostileCase("item title: NUL", .shareInbox, mentions: ["title", "NUL"]) { try inbox($0).enqueue(SharedItem(title: "a\0b")) },
    HostileCase("item title: 1 MB", .shareInbox, mentions: ["title", "bytes"]) { try inbox($0).enqueue(SharedItem(title: String(repeating: "t", count: 1 << 20))) },
    // Entitlements files.
    HostileCase("entitlements: not XML", .appGroup, mentions: ["App.entitlements", "not a property list"]) { try readEntitlements($0, "this is { not xml") },
    HostileCase("entitlements: root is an array", .appGroup, mentions: ["(root)", "array"]) { try readEntitlements($0, plist("<array><string>x</string></array>")) },
    HostileCase("entitlements: groups is a string", .appGroup, mentions: ["com.apple.security.application-groups", "string"]) { try readEntitlements($0, plist("<dict><key>com.apple.security.application-groups</key><string>group.a.b</string></dict>")) },
    HostileCase("entitlements: a group is a number", .appGroup, mentions: ["com.apple.security.application-groups[0]", "number"]) { try readEntitlements($0, plist("<dict><key>com.apple.security.application-groups</key><array><integer>7</integer></array></dict>")) },
    HostileCase("entitlements: a group that is not an identifier", .appGroup, mentions: ["com.apple.security.application-groups", "../etc"]) { try readEntitlements($0, plist("<dict><key>com.apple.security.application-groups</key><array><string>../etc</string></array></dict>")) },
    HostileCase("entitlements: application-identifier missing, no bundle id", .appGroup, mentions: ["application-identifier", "missing"]) { try readEntitlements($0, plist("<dict/>"), bundle: nil) },
    HostileCase("entitlements: application-identifier is a number", .appGroup, mentions: ["application-identifier"]) { try readEntitlements($0, plist("<dict><key>application-identifier</key><integer>1</integer></dict>")) },
    HostileCase("entitlements: unexpanded build setting", .appGroup, mentions: ["$(DEVELOPMENT_TEAM)"]) { try readEntitlements($0, plist("<dict><key>keychain-access-groups</key><array><string>$(DEVELOPMENT_TEAM).vault</string></array></dict>")) },
    HostileCase("entitlements: the file is missing", .appGroup, mentions: ["missing.entitlements"]) { sandbox in
        _ = try Entitlements(contentsOf: sandbox.scratch.appendingPathComponent("missing.entitlements"), teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "a.b")
    },
    // Suite files.
    HostileCase("suite file: garbage", .sharedDefaults, mentions: ["corrupt", "not a property list"]) { try readSuite($0) { try Data("garbage \u{1}\u{2}".utf8).write(to: $0) } },
    HostileCase("suite file: truncated binary plist", .sharedDefaults, mentions: ["corrupt", "truncated"]) { sandbox in
        try readSuite(sandbox) { url in
            let whole = try PropertyListSerialization.data(fromPropertyList: ["a": "b", "c": [1, 2, 3]], format: .binary, options: 0)
            try whole.prefix(whole.count - 9).write(to: url)
        }
    },
    HostileCase("suite file: root is an array", .sharedDefaults, mentions: ["corrupt", "array"]) { sandbox in
        try readSuite(sandbox) { try PropertyListSerialization.data(fromPropertyList: [1, 2], format: .binary, options: 0).write(to: $0) }
    },
    HostileCase("suite file: a binary plist holding a set", .sharedDefaults, mentions: ["corrupt", "set"]) { try readSuite($0) { try binaryPlistWithSet().write(to: $0) } },
    HostileCase("entitlements file: a binary plist holding a set", .appGroup, mentions: ["App.entitlements", "set"]) { sandbox in
        let file = sandbox.scratch.appendingPathComponent("App.entitlements")
        try binaryPlistWithSet().write(to: file)
        _ = try Entitlements(contentsOf: file, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "a.b")
    },
    HostileCase("keychain file: a binary plist holding a set", .keychain, mentions: ["errSecInvalidKeychain", "set"]) { sandbox in
        let device = try KeychainDevice(root: sandbox.root)
        let keychain = Keychain(device: device, identity: sandbox.app)
        let file = device.itemsURL(forAccessGroup: keychain.defaultAccessGroup)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try binaryPlistWithSet().write(to: file)
        _ = try keychain.readIfPresent(GenericPassword(service: "s", account: "a"))
    },
    HostileCase("stored data: a binary plist holding a set, read as Codable", .sharedDefaults, mentions: ["k"]) { sandbox in
        let defaults = try suite(sandbox)
        try defaults.save(binaryPlistWithSet(), forKey: "k")
        _ = try defaults.value([String].self, forKey: "k")
    },
    HostileCase("suite file: empty", .sharedDefaults, mentions: ["corrupt", "empty"]) { try readSuite($0) { try Data().write(to: $0) } },
    HostileCase("suite file: 100 MB", .sharedDefaults, mentions: ["104857600 bytes"]) { sandbox in
        try readSuite(sandbox) { url in
            // Sparse: the size is what the reader checks before reading a byte.
            #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
            #expect(truncate(url.path, 100 << 20) == 0)
        }
    },
    HostileCase("suite file: a directory", .sharedDefaults, mentions: ["directory"]) { try readSuite($0) { try FileManager.default.createDirectory(at: $0, withIntermediateDirectories: false) } },
    HostileCase("suite file: a directory, on write", .sharedDefaults, mentions: ["directory"]) { sandbox in
        let defaults = try suite(sandbox)
        try FileManager.default.createDirectory(at: defaults.fileURL, withIntermediateDirectories: false)
        try defaults.save(1, forKey: "k")
    },
    HostileCase("suite file: a FIFO", .sharedDefaults, mentions: ["FIFO"]) { try readSuite($0) { #expect(mkfifo($0.path, 0o600) == 0) } },
    HostileCase("suite file: a FIFO, on write", .sharedDefaults, mentions: ["FIFO"]) { sandbox in
        let defaults = try suite(sandbox)
        #expect(mkfifo(defaults.fileURL.path, 0o600) == 0)
        try defaults.save(1, forKey: "k")
    },
]

@Suite("Hostile input", .tags(.hostile), .dedicatedThreads)
struct HostileInputTests {
    @Test("each hostile input is refused with the module's typed error, a clear message, and no crash or hang", arguments: hostileCases)
    func refused(_ hostile: HostileCase) throws {
        let sandbox = try Sandbox()
        // On another thread with a deadline: a FIFO opened without O_NONBLOCK would hang here.
        let result = Tally<Result<Void, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let outcome = Result { try hostile.attempt(sandbox) }
            result.update { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + 60) == .success, let outcome = result.current else {
            Issue.record("\(hostile.name): no answer within 60 s (a hang)")
            return
        }
        switch outcome {
        case .success:
            Issue.record("\(hostile.name): accepted")
        case .failure(let error):
            switch hostile.expected {
            case .appGroup: #expect(error is AppGroupError, "\(hostile.name): \(type(of: error)): \(error)")
            case .sharedDefaults: #expect(error is SharedDefaultsError, "\(hostile.name): \(type(of: error)): \(error)")
            case .keychain: #expect(error is KeychainError, "\(hostile.name): \(type(of: error)): \(error)")
            case .shareInbox: #expect(error is ShareInboxError, "\(hostile.name): \(type(of: error)): \(error)")
            }
            let message = "\(error)"
            for word in hostile.mentions {
                #expect(message.contains(word), "\(hostile.name): the message names \(word): \(message.prefix(300))")
            }
            #expect(message.utf8.count < 2000, "\(hostile.name): the message stays readable (\(message.utf8.count) bytes)")
        }
        #expect(sandbox.outsideContents().isEmpty)
    }

    @Test("the hostile input table has at least 30 cases")
    func count() {
        #expect(hostileCases.count >= 30)
        report("hostile input: \(hostileCases.count) cases, each refused with a typed error")
    }
}
