import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

/// Keys that differ only in Unicode normalization are two
/// keys on Apple's platforms (CFString dictionaries compare code units) and must
/// stay two here, through every write, whoever wrote them.
@Suite("Keys that differ only in Unicode normalization", .tags(.multiprocess, .python), .serialized, .dedicatedThreads)
struct NormalizationTwinTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// A Python peer following the locking protocol with the article's own Python
    /// (LockingProtocol.md's `lock`): lock, read, plistlib.dump a temporary
    /// (binary), fsync, os.replace, fsync the directory.
    static var peer: String {
        get throws { try LockingProtocolArticle.python() + driver }
    }

    static let driver = #"""

    import plistlib, sys, json
    path, mode = sys.argv[1], sys.argv[2]
    directory, name = os.path.split(path)
    if mode == "read":
        with open(path, "rb") as f:
            print(json.dumps(plistlib.load(f), ensure_ascii=True, sort_keys=True, default=str))
        sys.exit(0)
    os.makedirs(directory, exist_ok=True)
    fd = lock(os.fsencode(path), fcntl.LOCK_EX)
    try:
        try:
            with open(path, "rb") as f:
                suite = plistlib.load(f)
        except FileNotFoundError:
            suite = {}
        suite["caf\u00e9"] = "composed"
        suite["cafe\u0301"] = "decomposed"
        suite["nested"] = {"caf\u00e9": 1, "cafe\u0301": 2}
        temporary = os.path.join(directory, ".%s.tmp-py%d" % (name, os.getpid()))
        with open(temporary, "wb") as out:
            plistlib.dump(suite, out, fmt=plistlib.FMT_BINARY)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
        dfd = os.open(directory, os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)
    finally:
        fcntl.lockf(fd, fcntl.LOCK_UN)
        os.close(fd)
    """#

    static func python(_ arguments: [String]) throws -> String {
        let python = try LaunchedProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", try peer] + arguments)
        #expect(python.status == 0, "python3 failed: \(python.standardError)")
        return python.standardOutput
    }

    @Test("a Python peer writes both spellings; a DefaultsProbe process writes another key; both spellings keep their values")
    func pythonPeerThenProbe() throws {
        let device = try Device()
        let suite = try device.defaults()
        _ = try Self.python([suite.fileURL.path, "write"])
        let probe = try device.probe(["count", "--suite", Device.group, "--key", "other", "--to", "1"]).wait(timeout: 90)
        #expect(probe.status == 0, "\(probe.standardError)")
        // Read by Python, which keeps both spellings apart.
        let json = try Self.python([suite.fileURL.path, "read"])
        #expect(json.contains(#""caf\u00e9": "composed""#), "\(json)")
        #expect(json.contains(#""cafe\u0301": "decomposed""#), "\(json)")
        #expect(json.contains(#""nested": {"cafe\u0301": 2, "caf\u00e9": 1}"#), "\(json)")
        #expect(json.contains(#""other": 1"#), "\(json)")
        // And each spelling reads its own value, in another process and in this one.
        let composed = try device.probe(["get", "--suite", Device.group, "--key", Self.composed]).wait(timeout: 90)
        let decomposed = try device.probe(["get", "--suite", Device.group, "--key", Self.decomposed]).wait(timeout: 90)
        #expect(composed.standardOutput == "composed\n")
        #expect(decomposed.standardOutput == "decomposed\n")
        #expect(suite.string(forKey: Self.composed) == "composed")
        #expect(suite.string(forKey: Self.decomposed) == "decomposed")
    }

    @Test("both spellings set by this package stay two keys; removeObject removes only the exact spelling")
    func exactSpellingInThisPackage() throws {
        let device = try Device()
        let d = try device.defaults()
        d.set(1, forKey: Self.composed)
        d.set(2, forKey: Self.decomposed)
        try d.transaction { t in try t.set(3, forKey: "third") }
        let fresh = try device.defaults()
        #expect(fresh.integer(forKey: Self.composed) == 1)
        #expect(fresh.integer(forKey: Self.decomposed) == 2)
        #expect(try fresh.storedKeys().count == 3)
        fresh.removeObject(forKey: Self.decomposed)
        let after = try device.defaults()
        #expect(after.integer(forKey: Self.composed) == 1)
        #expect(after.object(forKey: Self.decomposed) == nil)
        // The Swift-dictionary views give one of them, the first in file order, without crashing.
        d.set(2, forKey: Self.decomposed)
        #expect(try device.defaults().persistentDomain()[Self.composed] as? Int == 1)
        #expect(d.dictionaryRepresentation()[Self.decomposed] as? Int == 1)
    }

    @Test("after each save by another writer, a reader gets each spelling's own value, keys read one by one and past them")
    func twinsReadAloneAfterAChange() throws {
        let device = try Device()
        let writer = try device.defaults()
        let reader = try device.defaults(as: device.share)
        for n in 0..<4 {
            try writer.transaction { t in
                try t.set("composed \(n)", forKey: Self.composed)
                try t.set("decomposed \(n)", forKey: Self.decomposed)
                for k in 0..<8 { try t.set(k * 10 + n, forKey: "k\(k)") }
            }
            // Alternate orders, so each spelling is the first key read alone once.
            let spellings = [(Self.composed, "composed \(n)"), (Self.decomposed, "decomposed \(n)")]
            let order = n % 2 == 0 ? spellings : spellings.reversed()
            for (key, value) in order + order { #expect(reader.string(forKey: key) == value, "save \(n)") }
            // More keys than are read alone: the rest come from the file decoded whole.
            for k in 0..<8 { #expect(reader.integer(forKey: "k\(k)") == k * 10 + n, "save \(n), k\(k)") }
            #expect(reader.string(forKey: Self.decomposed) == "decomposed \(n)")
            #expect(reader.object(forKey: "absent") == nil)
        }
    }

    @Test("nested twin keys from a peer survive update of that very key's siblings and a Codable read gives a typed error")
    func nestedTwinsAndCodable() throws {
        let device = try Device()
        let d = try device.defaults()
        _ = try Self.python([d.fileURL.path, "write"])
        try d.update(Int.self, forKey: "n") { ($0 ?? 0) + 1 }
        guard case .dictionary(let nested)? = try d.store.withCurrentValues({ $0["nested"] }) else {
            Issue.record("nested is not a dictionary"); return
        }
        #expect(nested[Self.composed] == .integer(.signed(1)))
        #expect(nested[Self.decomposed] == .integer(.signed(2)))
        // plistlib sorts keys by code point, so the decomposed spelling comes first in the file.
        #expect(d.dictionary(forKey: "nested")?[Self.composed] as? Int == 2, "the Swift view gives the first in file order")
        #expect(throws: SharedDefaultsError.self) { try d.value([String: Int].self, forKey: "nested") }
    }

    @Test("observers of the two spellings each receive their own key's value")
    func observersAreExact() throws {
        let device = try Device()
        let d = try device.defaults()
        let composedSeen = Seen(), decomposedSeen = Seen()
        let a = try d.addObserver(forKey: Self.composed) { composedSeen.add($0 as? Int) }
        let b = try d.addObserver(forKey: Self.decomposed) { decomposedSeen.add($0 as? Int) }
        defer { a.cancel(); b.cancel() }
        // One save holding both, so one change event reports both keys.
        try d.transaction { t in
            try t.set(1, forKey: Self.composed)
            try t.set(2, forKey: Self.decomposed)
        }
        #expect(eventually(seconds: 10) { composedSeen.values.last == 1 && decomposedSeen.values.last == 2 },
                "composed saw \(composedSeen.values), decomposed saw \(decomposedSeen.values)")
    }

    @Test("a suite configured for XML keeps both spellings, top level and nested, through this package's writes")
    func xmlSuiteKeepsTwins() throws {
        let device = try Device()
        let xml = try SharedDefaults(requiringSuiteName: Device.group, resolver: device.resolver(), format: .xml)
        _ = try Self.python([xml.fileURL.path, "write"])
        try xml.save(Date(timeIntervalSinceReferenceDate: 86_400), forKey: "when")
        let text = try String(contentsOf: xml.fileURL, encoding: .utf8)
        #expect(text.hasPrefix("<?xml"))
        let json = try Self.python([xml.fileURL.path, "read"])
        #expect(json.contains(#""caf\u00e9": "composed""#) && json.contains(#""cafe\u0301": "decomposed""#), "\(json)")
        #expect(json.contains(#""nested": {"cafe\u0301": 2, "caf\u00e9": 1}"#), "\(json)")
        let fresh = try device.defaults()
        #expect(fresh.string(forKey: Self.decomposed) == "decomposed")
        #expect((fresh.object(forKey: "when") as? Date)?.timeIntervalSinceReferenceDate == 86_400)
    }

    @Test("registered defaults are looked up by exact spelling")
    func registrationIsExact() throws {
        let device = try Device()
        let d = try device.defaults()
        let key = "reg-" + Self.composed + "-\(UUID().uuidString)"
        d.register(defaults: [key: "registered"])
        #expect(d.string(forKey: key) == "registered")
        #expect(d.object(forKey: key.replacingOccurrences(of: Self.composed, with: Self.decomposed)) == nil)
    }
}
