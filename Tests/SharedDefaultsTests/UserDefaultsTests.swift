#if !canImport(Darwin)
import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults
// The emulator's UserDefaults in place of Foundation's, in this file.
import class SharedDefaults.UserDefaults
import TestSupport

/// iOS idioms over `UserDefaults`, in one process: each target's suite opened with
/// its resolver (the probes in UserDefaultsProcessTests open theirs as iOS code does).
@Suite("UserDefaults idioms", .dedicatedThreads)
struct UserDefaultsTests {
    let device: Device
    init() throws { device = try Device() }

    func suite(_ name: String? = Device.group, as identity: Entitlements? = nil) throws -> UserDefaults {
        try #require(UserDefaults(suiteName: name, resolver: device.resolver(identity)))
    }

    @Test("set(nil, forKey:) removes the key, and a registered default shows through again")
    func setNilRemoves() throws {
        let defaults = try suite()
        defaults.register(defaults: ["setNilRemoves.flag": "registered"])
        defaults.set("stored", forKey: "setNilRemoves.flag")
        defaults.set(nil, forKey: "setNilRemoves.flag")
        #expect(defaults.string(forKey: "setNilRemoves.flag") == "registered")
        #expect(try defaults.sharedDefaults?.persistentDomain()["setNilRemoves.flag"] == nil)
        #expect(defaults.lastError == nil)
    }

    @Test("value(forKey:) and setValue(_:forKey:) are the defaults, as NSUserDefaults answers key-value coding")
    func keyValueCoding() throws {
        let defaults = try suite()
        defaults.setValue("kvc", forKey: "name")
        defaults.setValue(7, forKey: "count")
        #expect(defaults.value(forKey: "name") as? String == "kvc")
        #expect(defaults.value(forKey: "count") as? Int == 7)
        // The share extension's process reads what KVC wrote.
        #expect(try suite(as: device.share).string(forKey: "name") == "kvc")
        defaults.setValue(nil, forKey: "name")
        #expect(defaults.value(forKey: "name") == nil)
    }

    @Test("setValuesForKeys moves a standard suite into the group's in one save, and a refused value writes nothing")
    func migrationBySetValuesForKeys() throws {
        // The migration iOS apps write when they adopt an App Group: copy the
        // standard suite into the group's, then delete the originals.
        let standard = try suite(nil)
        standard.set("alice", forKey: "migration.user")
        standard.set(3, forKey: "migration.launches")
        standard.set(["a", "b"], forKey: "migration.tags")
        let group = try suite()
        group.set("stale", forKey: "migration.removed")
        let originals = standard.dictionaryWithValues(forKeys: ["migration.user", "migration.launches", "migration.tags"])
        var values = originals
        values["migration.removed"] = NSNull()
        group.setValuesForKeys(values)
        #expect(group.lastError == nil)
        let extensionView = try suite(as: device.share)
        #expect(extensionView.string(forKey: "migration.user") == "alice")
        #expect(extensionView.integer(forKey: "migration.launches") == 3)
        #expect(extensionView.stringArray(forKey: "migration.tags") == ["a", "b"])
        #expect(extensionView.object(forKey: "migration.removed") == nil, "NSNull removes its key")
        #expect(group.dictionaryWithValues(forKeys: ["migration.user", "migration.none"])["migration.none"] is NSNull)

        // One value that is not a property list: nothing of the batch is written.
        group.setValuesForKeys(["migration.next": "x", "migration.bad": NSObject()])
        #expect(group.lastError != nil, "the refusal is reported")
        #expect(extensionView.object(forKey: "migration.next") == nil, "all or nothing")
    }

    @Test("removePersistentDomain(forName:) empties the suite for every process; other suites keep theirs")
    func removePersistentDomain() throws {
        let defaults = try suite()
        defaults.set(1, forKey: "a")
        defaults.set("x", forKey: "b")
        let own = try suite(nil)
        own.set(true, forKey: "mine")
        defaults.removePersistentDomain(forName: Device.group)
        #expect(defaults.persistentDomain(forName: Device.group)?.isEmpty == true)
        #expect(try suite(as: device.share).object(forKey: "a") == nil)
        #expect(own.bool(forKey: "mine"))
        // By the bundle identifier: the target's standard domain.
        defaults.removePersistentDomain(forName: "ai.systenics.notes")
        #expect(own.object(forKey: "mine") == nil)
        #expect(defaults.lastError == nil)
    }

    @Test("setPersistentDomain(_:forName:) replaces a domain whole; a bad value anywhere writes nothing")
    func setPersistentDomain() throws {
        let defaults = try suite()
        defaults.set("old", forKey: "stale")
        defaults.setPersistentDomain(["fresh": 1, "list": [1, 2]], forName: Device.group)
        let domain = try #require(defaults.persistentDomain(forName: Device.group))
        #expect(domain.keys.sorted() == ["fresh", "list"])
        #expect(domain["list"] as? [Int] == [1, 2])

        defaults.setPersistentDomain(["ok": 1, "bad": [NotAPlist()]], forName: Device.group)
        #expect(defaults.persistentDomain(forName: Device.group)?.keys.sorted() == ["fresh", "list"])
        guard case .notPropertyList(key: "bad", _, _)? = defaults.lastError else {
            Issue.record("expected notPropertyList for key bad, got \(String(describing: defaults.lastError))")
            return
        }
        // A name no suite can have is reported, not a crash.
        #expect(defaults.persistentDomain(forName: "NSGlobalDomain") == nil)
    }

    @Test("dictionaryRepresentation() merges registration, added suites and the suite; synchronize() changes nothing")
    func dictionaryRepresentationAndSynchronize() throws {
        let defaults = try suite()
        defaults.register(defaults: ["dictionaryRepresentation.registered": 1])
        defaults.set(2, forKey: "both")
        let settings = try suite("settings")
        settings.set(3, forKey: "both")
        settings.set("s", forKey: "onlySettings")
        defaults.addSuite(named: "settings")
        let everything = defaults.dictionaryRepresentation()
        #expect(everything["dictionaryRepresentation.registered"] as? Int == 1)
        #expect(everything["both"] as? Int == 2)
        #expect(everything["onlySettings"] as? String == "s")
        #expect(defaults.string(forKey: "onlySettings") == "s")
        defaults.removeSuite(named: "settings")
        #expect(defaults.object(forKey: "onlySettings") == nil)

        let file = try Data(contentsOf: try #require(defaults.sharedDefaults).fileURL)
        #expect(defaults.synchronize())
        #expect(try Data(contentsOf: try #require(defaults.sharedDefaults).fileURL) == file)
    }

    @Test("an API typed UserDefaults takes the shared suite, and the other target reads what it stored")
    func typedAPI() throws {
        func store(_ url: URL, in defaults: UserDefaults) {
            defaults.set(url.absoluteString, forKey: "lastURL")
        }
        let url = URL(string: "https://example.com/shared?id=1")!
        store(url, in: try suite())
        #expect(try suite(as: device.share).url(forKey: "lastURL") == url)
    }

    @Test("didChangeNotification is posted, object the suite, for each change made through it; a refused write posts nothing")
    func didChangeNotification() throws {
        let defaults = try suite()
        let other = try suite()
        let counter = Counter()
        let token = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: defaults, queue: nil) { note in
            if note.object as AnyObject === defaults { counter.add() }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        defaults.set(1, forKey: "n")
        defaults.removeObject(forKey: "n")
        defaults.setPersistentDomain(["m": 1], forName: Device.group)
        #expect(counter.value == 3)
        defaults.set(NotAPlist(), forKey: "n")
        other.set(2, forKey: "n")  // another object's change: posted with that object
        #expect(counter.value == 3)
        // Foundation's name: observers written against Foundation.UserDefaults receive it too.
        #expect(UserDefaults.didChangeNotification == Foundation.UserDefaults.didChangeNotification)
    }

    @Test("launch arguments -key value are parsed as Apple parses them: strings, or property lists when they look like one")
    func argumentDomainParsing() {
        let parsed = ArgumentDomain.parse(["probe", "-theme", "dark", "--suite", "x", "-flag", "-other", "v",
                                           "-list", "(a, b)", "-dict", "<dict><key>n</key><integer>2</integer></dict>", "-bad", "(unclosed", "-", "lone"])
        #expect(parsed["theme"] as? String == "dark")
        #expect(parsed["-suite"] as? String == "x")
        #expect(parsed["flag"] == nil)                       // followed by another option: no value
        #expect(parsed["other"] as? String == "v")
        #expect(parsed["list"] as? [String] == ["a", "b"])
        #expect((parsed["dict"] as? [String: Any])?["n"] as? Int == 2)
        #expect(parsed["bad"] as? String == "(unclosed")    // not a property list after all: the text
        #expect(parsed[""] == nil)
    }

    @Test("an observer of didChangeNotification may write the same suite from its handler")
    func reentrantObserver() throws {
        let defaults = try suite()
        let counter = Counter()
        let token = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: defaults, queue: nil) { _ in
            // Posted after the write, with no lock held: writing again here neither deadlocks nor loses either write.
            counter.add()
            if counter.value == 1 { defaults.set(defaults.integer(forKey: "seen") + 1, forKey: "seen") }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        defaults.set("first", forKey: "trigger")
        #expect(counter.value == 2)
        #expect(defaults.integer(forKey: "seen") == 1 && defaults.string(forKey: "trigger") == "first")
    }

    @Test("odd suite and domain names give nil or nothing, with the reason, never a crash")
    func oddNames() throws {
        for name in ["", "a/b", ".hidden", "../escape", "nul\u{0}byte", String(repeating: "x", count: 300)] {
            #expect(UserDefaults(suiteName: name, resolver: device.resolver()) == nil, "\(name.prefix(20))")
        }
        let defaults = try suite()
        defaults.set(1, forKey: "kept")
        for name in ["", "../escape", "NSGlobalDomain"] {
            #expect(defaults.persistentDomain(forName: name) == nil)
            defaults.removePersistentDomain(forName: name)
            defaults.setPersistentDomain(["x": 1], forName: name)
        }
        #expect(defaults.integer(forKey: "kept") == 1)
        #expect(SimulatedDevice.files(under: device.root).allSatisfy { !$0.contains("escape") && !$0.contains("NSGlobalDomain") })
        // Keys: an empty key is refused and reported; nothing is written.
        defaults.set(1, forKey: "")
        guard case .invalidKey? = defaults.lastError else {
            Issue.record("expected invalidKey, got \(String(describing: defaults.lastError))")
            return
        }
    }

    @Test("object(forKey:) gives NSNumbers: a Float reads as? Float, an Int as? Double, 1 as? Bool, as on iOS")
    func numberCasts() throws {
        let writer = try suite()
        writer.set(Float(0.1), forKey: "float")
        writer.set(3, forKey: "int")
        writer.set(1, forKey: "one")
        writer.set(true, forKey: "bool")
        writer.set(2.5, forKey: "real")
        writer.set(["n": 2, "list": [1, 2]] as [String: Any], forKey: "nested")
        // Read back from the file by the other target's process-side object.
        let reader = try suite(as: device.share)
        #expect(reader.object(forKey: "float") as? Float == Float(0.1))
        #expect(reader.object(forKey: "float") as? Double == Double(Float(0.1)))
        #expect(reader.object(forKey: "int") as? Double == 3)
        #expect(reader.object(forKey: "int") as? Float == 3)
        #expect(reader.object(forKey: "int") as? Int == 3)
        #expect(reader.object(forKey: "one") as? Bool == true)
        #expect(reader.object(forKey: "bool") as? Int == 1)
        #expect(reader.object(forKey: "bool") as? Bool == true)
        #expect(reader.object(forKey: "int") as? Bool == nil)   // 3 is no Bool, on iOS either
        #expect(reader.object(forKey: "real") as? Int == nil)   // nor 2.5 an Int
        #expect(reader.object(forKey: "real") as? NSNumber == NSNumber(value: 2.5))
        let nested = try #require(reader.object(forKey: "nested") as? [String: Any])
        #expect(nested["n"] as? Double == 2)
        #expect(nested["list"] as? [Double] == [1, 2])
        #expect(reader.dictionary(forKey: "nested")?["n"] as? Bool == nil)
        #expect(reader.value(forKey: "one") as? Bool == true)

        // What object(forKey:) gave, stored again (a copy between suites), keeps its type.
        let copy = try suite("copy")
        for key in ["bool", "int", "float", "nested"] { copy.set(reader.object(forKey: key), forKey: key) }
        let stored = try #require(try copy.sharedDefaults?.persistentDomain())
        #expect(stored["bool"] as? Bool == true && stored["int"] as? Int == 3)
        #expect(stored["float"] as? Double == Double(Float(0.1)))
        #expect((stored["nested"] as? [String: Any])?["list"] as? [Int] == [1, 2])
        #expect(copy.lastError == nil)
    }

    @Test("the strict initializer throws for a group the identity lacks; the lenient one gives a private suite")
    func strictInitializer() throws {
        #expect {
            try UserDefaults(requiringSuiteName: Device.group, resolver: device.resolver(device.outsider))
        } throws: { error in
            guard case .suiteUnavailable(_, .notEntitled(let group, "ai.systenics.other", _))? = error as? SharedDefaultsError else { return false }
            return group == Device.group
        }
        let lenient = try suite(as: device.outsider)
        #expect(lenient.sharedDefaults?.isPrivateFallback == true)
        #expect(UserDefaults(suiteName: "NSGlobalDomain", resolver: device.resolver()) == nil)
        #expect(UserDefaults(suiteName: "ai.systenics.notes", resolver: device.resolver()) == nil)
    }
}

/// Counts notifications from any thread.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
#endif
