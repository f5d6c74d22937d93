import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

@Suite("Opening a suite", .dedicatedThreads)
struct SuiteNameTests {
    @Test("NSGlobalDomain and the own bundle id are refused; the strict initializer also refuses a group the identity lacks")
    func refusals() throws {
        let device = try Device()
        #expect(SharedDefaults(suiteName: "NSGlobalDomain", resolver: device.resolver()) == nil)
        #expect(SharedDefaults(suiteName: "ai.systenics.notes", resolver: device.resolver()) == nil)
        // A group the identity lacks is a private suite for init?(suiteName:), as on iOS (PrivateFallbackTests).

        #expect {
            try device.defaults("NSGlobalDomain")
        } throws: { error in
            guard case .invalidSuiteName("NSGlobalDomain", _)? = error as? SharedDefaultsError else { return false }
            return true
        }
        #expect {
            try device.defaults("ai.systenics.notes")
        } throws: { error in
            guard case .invalidSuiteName(_, let problem)? = error as? SharedDefaultsError else { return false }
            return problem.contains("bundle identifier")
        }
        #expect {
            try device.defaults(Device.group, as: device.outsider)
        } throws: { error in
            guard case .suiteUnavailable(let suite, .notEntitled(let group, let bundle, _))? = error as? SharedDefaultsError else { return false }
            return suite == Device.group && group == Device.group && bundle == "ai.systenics.other"
                && "\(error)".contains("Fix: add the App Groups capability")
        }
        // The share extension's own bundle id is not refused for the app, only for itself.
        #expect(throws: SharedDefaultsError.self) { try device.defaults("ai.systenics.notes.share", as: device.share) }
        #expect(throws: SharedDefaultsError.self) { try device.defaults("group.") }
        #expect(throws: SharedDefaultsError.self) { try device.defaults("a/b") }
        #expect(throws: SharedDefaultsError.self) { try device.defaults("") }
    }

    @Test("a group suite lives in the group container; other names in the identity's own container")
    func locations() throws {
        let device = try Device()
        let group = try device.defaults()
        #expect(group.fileURL.path == device.root.appendingPathComponent("\(Device.group)/Library/Preferences/\(Device.group).plist").path)
        #expect(group.groupIdentifier?.rawValue == Device.group)
        let plain = try device.defaults("settings")
        #expect(plain.fileURL.path == device.root.appendingPathComponent("Applications/ai.systenics.notes/Library/Preferences/settings.plist").path)
        #expect(plain.groupIdentifier == nil)
        let own = try device.defaults(nil)
        #expect(own.fileURL.lastPathComponent == "ai.systenics.notes.plist")

        // A plain suite is private: the extension's suite of the same name is another file.
        let sharePlain = try device.defaults("settings", as: device.share)
        plain.set(1, forKey: "x")
        #expect(sharePlain.object(forKey: "x") == nil)
        // The group suite is shared.
        let shareGroup = try device.defaults(as: device.share)
        group.set("hello", forKey: "greeting")
        #expect(shareGroup.string(forKey: "greeting") == "hello")
    }
}

@Suite("Values", .dedicatedThreads)
struct ValueTests {
    @Test("property-list values round-trip through the file")
    func roundTrip() throws {
        let device = try Device()
        let writer = try device.defaults()
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        writer.set("text", forKey: "s")
        writer.set(42, forKey: "i")
        writer.set(2.5, forKey: "d")
        writer.set(Float(0.25), forKey: "f")
        writer.set(true, forKey: "b")
        writer.set(Data([1, 2, 3]), forKey: "data")
        writer.set(date, forKey: "date")
        writer.set(URL(string: "https://example.com/a?b=c")!, forKey: "url")
        writer.set(["a", 1, false, ["nested": [1.5]]] as [Any], forKey: "array")
        writer.set(["k": "v", "n": ["x": Data([9])]] as [String: Any], forKey: "dict")
        writer.set(["one", "two"], forKey: "strings")
        #expect(writer.lastError == nil)

        let reader = try device.defaults(as: device.share) // another instance, its own cache
        #expect(reader.string(forKey: "s") == "text")
        #expect(reader.integer(forKey: "i") == 42)
        #expect(reader.object(forKey: "i") as? Int == 42)
        #expect(reader.double(forKey: "d") == 2.5)
        #expect(reader.float(forKey: "f") == 0.25)
        #expect(reader.bool(forKey: "b"))
        #expect(reader.object(forKey: "b") as? Bool == true)
        #expect(reader.data(forKey: "data") == Data([1, 2, 3]))
        #expect(reader.object(forKey: "date") as? Date == date)
        #expect(reader.url(forKey: "url") == URL(string: "https://example.com/a?b=c"))
        let array = try #require(reader.array(forKey: "array"))
        #expect(array.count == 4)
        #expect(array[0] as? String == "a")
        #expect(array[1] as? Int == 1)
        #expect(array[2] as? Bool == false)
        #expect((array[3] as? [String: Any])?["nested"] as? [Double] == [1.5])
        #expect(reader.dictionary(forKey: "dict")?["k"] as? String == "v")
        #expect(reader.stringArray(forKey: "strings") == ["one", "two"])
        #expect(reader.stringArray(forKey: "array") == nil, "not every element is a string")
        #expect(try reader.persistentDomain().count == 11)
        #expect(reader.dictionaryRepresentation()["s"] as? String == "text")

        reader.removeObject(forKey: "s")
        #expect(writer.object(forKey: "s") == nil)
        #expect(writer.synchronize())
    }

    @Test("Apple's coercions in the typed getters")
    func coercions() throws {
        let device = try Device()
        let defaults = try device.defaults()
        defaults.set("12", forKey: "twelve")
        defaults.set(2.67, forKey: "real")
        defaults.set(-2.5, forKey: "negative")
        defaults.set(true, forKey: "yes")
        defaults.set("YES", forKey: "YES")
        defaults.set("true", forKey: "trueString")
        defaults.set("no", forKey: "noString")
        defaults.set("1", forKey: "oneString")
        defaults.set(123, forKey: "number")
        defaults.set("2.5", forKey: "realString")
        defaults.set("/tmp/file.txt", forKey: "path")
        defaults.set("~/notes", forKey: "tilde")
        defaults.set("not a url", forKey: "junk")
        defaults.set("abc", forKey: "letters")

        #expect(defaults.integer(forKey: "twelve") == 12)
        #expect(defaults.integer(forKey: "real") == 2)
        #expect(defaults.integer(forKey: "negative") == -3, "the greatest integer not above the value")
        #expect(defaults.integer(forKey: "yes") == 1)
        #expect(defaults.integer(forKey: "missing") == 0)
        #expect(defaults.integer(forKey: "letters") == 0)
        #expect(defaults.bool(forKey: "missing") == false)
        #expect(defaults.bool(forKey: "YES"))
        #expect(defaults.bool(forKey: "trueString"))
        #expect(defaults.bool(forKey: "oneString"))
        #expect(defaults.bool(forKey: "noString") == false)
        #expect(defaults.bool(forKey: "number"))
        #expect(defaults.bool(forKey: "letters") == false)
        #expect(defaults.string(forKey: "number") == "123")
        #expect(defaults.string(forKey: "real") == "2.67")
        #expect(defaults.string(forKey: "missing") == nil)
        #expect(defaults.double(forKey: "realString") == 2.5)
        #expect(defaults.double(forKey: "number") == 123)
        #expect(defaults.float(forKey: "twelve") == 12)
        #expect(defaults.url(forKey: "path") == URL(fileURLWithPath: "/tmp/file.txt"))
        #expect(defaults.url(forKey: "tilde")?.path == NSString(string: "~/notes").expandingTildeInPath)
        #expect(defaults.url(forKey: "junk") == nil)
        #expect(defaults.url(forKey: "number") == nil)
        #expect(defaults.data(forKey: "twelve") == nil)
        #expect(defaults.array(forKey: "twelve") == nil)
        #expect(defaults.dictionary(forKey: "twelve") == nil)
    }

    @Test("a non-property-list value is a typed error naming the key and type; nothing is written")
    func nonPropertyListValues() throws {
        let device = try Device()
        let defaults = try device.defaults()
        try defaults.save("kept", forKey: "before")
        let identity = try AtomicFile.identity(atPath: defaults.fileURL.path, below: .marked(above: defaults.fileURL))

        #expect {
            try defaults.save(NotAPlist(), forKey: "top")
        } throws: { error in
            guard case .notPropertyList("top", "top", let type)? = error as? SharedDefaultsError else { return false }
            return type == "NotAPlist" && "\(error)".contains("for key top")
        }
        #expect {
            try defaults.save(["list": [1, NotAPlist()]] as [String: Any], forKey: "nested")
        } throws: { error in
            guard case .notPropertyList("nested", "nested.list[1]", "NotAPlist")? = error as? SharedDefaultsError else { return false }
            return true
        }
        #expect(throws: SharedDefaultsError.self) { try defaults.save([1: "int key"] as [Int: String], forKey: "intKeys") }
        #expect(throws: SharedDefaultsError.self) { try defaults.save(NSNull(), forKey: "null") }
        var deep: Any = 1
        for _ in 0..<10_000 { deep = [deep] }
        #expect {
            try defaults.save(deep, forKey: "deep")
        } throws: { error in
            guard case .notPropertyList("deep", _, let type)? = error as? SharedDefaultsError else { return false }
            return type.contains("nesting deeper")
        }

        // The UserDefaults-shaped form does not crash: it reports.
        defaults.set([NotAPlist()], forKey: "quiet")
        guard case .notPropertyList("quiet", "quiet[0]", _)? = defaults.lastError else {
            Issue.record("lastError is \(String(describing: defaults.lastError))")
            return
        }
        defaults.register(defaults: ["bad": NotAPlist()])
        #expect(defaults.object(forKey: "bad") == nil)

        #expect(try AtomicFile.identity(atPath: defaults.fileURL.path, below: .marked(above: defaults.fileURL)) == identity, "the file was not rewritten")
        #expect(try defaults.persistentDomain().keys.sorted() == ["before"])
    }

    @Test("a suite reaching 4,194,304 bytes is refused and nothing is written")
    func sizeLimit() throws {
        let device = try Device()
        let defaults = try device.defaults()
        try defaults.save(Data(count: 4_194_304 - 200), forKey: "big")
        let identity = try AtomicFile.identity(atPath: defaults.fileURL.path, below: .marked(above: defaults.fileURL))
        #expect {
            try defaults.save(Data(count: 300), forKey: "more")
        } throws: { error in
            guard case .suiteTooLarge(_, let size, 4_194_304)? = error as? SharedDefaultsError else { return false }
            return size >= 4_194_304
        }
        #expect {
            try defaults.save(Data(count: 4_194_304), forKey: "big")
        } throws: { error in
            guard case .suiteTooLarge? = error as? SharedDefaultsError else { return false }
            return true
        }
        #expect(try AtomicFile.identity(atPath: defaults.fileURL.path, below: .marked(above: defaults.fileURL)) == identity)
        #expect(defaults.data(forKey: "big")?.count == 4_194_304 - 200)
        #expect(defaults.object(forKey: "more") == nil)
    }

    @Test("Codable values round-trip as readable property-list structures")
    func codable() throws {
        struct Draft: Codable, Equatable {
            var title: String
            var tags: [String]
            var created: Date
            var words: Int?
        }
        let device = try Device()
        let defaults = try device.defaults()
        let draft = Draft(title: "Hello", tags: ["a", "b"], created: Date(timeIntervalSince1970: 100), words: nil)
        try defaults.set(codable: draft, forKey: "draft")
        #expect(try defaults.value(Draft.self, forKey: "draft") == draft)
        #expect(defaults.dictionary(forKey: "draft")?["title"] as? String == "Hello")
        try defaults.set(codable: 7, forKey: "scalar")
        #expect(try defaults.value(Int.self, forKey: "scalar") == 7)
        #expect(try defaults.value(Draft.self, forKey: "missing") == nil)
        // The common iOS pattern: Data from PropertyListEncoder.
        defaults.set(try PropertyListEncoder().encode(draft), forKey: "encoded")
        #expect(try defaults.value(Draft.self, forKey: "encoded") == draft)
        #expect(throws: SharedDefaultsError.self) { try defaults.value(Draft.self, forKey: "scalar") }
    }

    @Test("register(defaults:) fills in missing keys, for every instance of this process, without writing them")
    func registration() throws {
        let device = try Device()
        let defaults = try device.defaults()
        // The registration domain is process-wide (as on Apple's platforms): keys
        // unique to this test keep the tests that run beside it unaffected.
        let volume = "registration.volume.\(UUID().uuidString)"
        let name = "registration.name.\(UUID().uuidString)"
        defaults.register(defaults: [volume: 5, name: "anon"])
        #expect(defaults.integer(forKey: volume) == 5)
        #expect(try device.defaults("settings").integer(forKey: volume) == 5, "another instance, another suite, same process")
        defaults.set(7, forKey: volume)
        #expect(defaults.integer(forKey: volume) == 7)
        defaults.removeObject(forKey: volume)
        #expect(defaults.integer(forKey: volume) == 5)
        #expect(defaults.dictionaryRepresentation()[name] as? String == "anon")
        #expect(try defaults.persistentDomain()[name] == nil)
        try defaults.update(Int.self, forKey: volume) { ($0 ?? 0) + 1 }
        #expect(try defaults.persistentDomain()[volume] as? Int == 6, "update starts from the registered default")
        try defaults.transaction { suite in
            #expect(suite.string(forKey: name) == "anon")
        }
    }

    @Test("transactions change several keys under one lock; threads never lose one")
    func transactions() throws {
        let device = try Device()
        let defaults = try device.defaults()
        let other = try device.defaults(as: device.share)
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            let instance = index.isMultiple(of: 2) ? defaults : other
            for _ in 0..<50 {
                do {
                    try instance.transaction { suite in
                        try suite.set(suite.integer(forKey: "x") + 1, forKey: "x")
                        try suite.set(suite.integer(forKey: "y") - 1, forKey: "y")
                    }
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
        #expect(defaults.integer(forKey: "x") == 200)
        #expect(other.integer(forKey: "y") == -200)

        // A throwing body writes nothing.
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try defaults.transaction { suite in
                try suite.set(0, forKey: "x")
                throw Stop()
            }
        }
        #expect(defaults.integer(forKey: "x") == 200)
    }

    @Test("a reader keeps at most a batch of replaced suite files open, and none once its store is gone")
    func replacedFilesAreReleased() throws {
        let device = try Device()
        let path = try device.defaults().fileURL.path
        /// Descriptors of this process on a replaced (unlinked) copy of the suite file.
        func replacedOpen() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { fd in
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? ""
                return target.hasPrefix(path) && target.hasSuffix("(deleted)")
            }.count
        }
        var most = 0
        do {
            let writer = try device.defaults()
            let reader = try device.defaults(as: device.share)
            for n in 0..<60 {
                writer.set(n, forKey: "n")
                #expect(reader.integer(forKey: "n") == n)
                #expect(reader.string(forKey: "missing") == nil) // a second key: the file decoded whole
                AtomicFile.waitForBackgroundReleases()
                most = max(most, replacedOpen())
            }
        }
        // The reader's batch, plus the writer's own just-replaced file in flight.
        #expect(most <= SuiteStore.retiredBatch + 1, "\(most) replaced copies open at once")
        #expect(most >= 2, "the count must see the reader's retired copies")
        AtomicFile.waitForBackgroundReleases()
        #expect(replacedOpen() == 0, "both stores are gone: every replaced copy must be closed")
    }

    @Test("a write by any writer is seen at once by a cached reader")
    func coherentReads() throws {
        let device = try Device()
        let a = try device.defaults()
        let b = try device.defaults(as: device.share)
        for n in 0..<50 {
            a.set(n, forKey: "n")
            #expect(b.integer(forKey: "n") == n)
        }
        // An unchanged suite is never parsed again; each change is parsed once.
        let parsesBefore = b.store.parseCount
        for _ in 0..<100 { #expect(b.integer(forKey: "n") == 49) }
        #expect(b.store.parseCount == parsesBefore)
        a.set(50, forKey: "n")
        #expect(a.store.parseCount == 0, "the only writer caches what it saves: it never parses its own file")
        for _ in 0..<10 { #expect(b.integer(forKey: "n") == 50) }
        #expect(b.store.parseCount == parsesBefore + 1)

        // A foreign writer that replaces the file by hand (another language, a tool).
        let data = try PropertyListSerialization.data(fromPropertyList: ["n": 999], format: .xml, options: 0)
        try AtomicFile.write(data, to: a.fileURL, below: .marked(above: a.fileURL))
        #expect(b.integer(forKey: "n") == 999)
        #expect(a.integer(forKey: "n") == 999)
    }

    @Test("the file is a binary property list that Python's plistlib reads", .tags(.multiprocess, .python),
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3 (.ci/run installs it)"))
    func pythonReadsTheSuite() throws {
        let device = try Device()
        let defaults = try device.defaults()
        defaults.set("hello", forKey: "greeting")
        defaults.set(3, forKey: "count")
        let data = try Data(contentsOf: defaults.fileURL)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let python = try LaunchedProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), [
            "-c", "import plistlib,sys; d=plistlib.load(open(sys.argv[1],'rb')); print(d['greeting'], d['count'])", defaults.fileURL.path,
        ])
        #expect(python.status == 0)
        #expect(python.standardOutput == "hello 3\n")
    }
}
