// Compiles as an app's module that imports AppGroupFoundation and notify beside its
// own types named like AppGroupContainer's API (Entitlements, Diagnostics,
// AppGroupError, GroupIdentifier, ContainerResolver): were either module to expose
// more than Apple's names, the uses below would be ambiguous and this target would
// not compile.
import AppGroupFoundation
import notify
import SecurityNamesFixture
import Testing

@Suite struct AppGroupFoundationNamesTests {
    @Test func anAppsOwnTypesKeepTheirNamesBesideAppGroupFoundationAndNotify() {
        let entitlements = Entitlements()
        let line = Diagnostics.log("hello")
        let groupError: Error = AppGroupError.missing
        let group = GroupIdentifier()
        let resolver = ContainerResolver()
        #expect(entitlements.groups.isEmpty && line == "hello" && groupError is AppGroupError && group.value == "group.x")
        _ = resolver
    }

    @Test func applesNamesStillWork() {
        #expect(CFNotificationName("a" as CFString).rawValue == "a")
        #expect(NSFileCoordinator.ReadingOptions.withoutChanges.rawValue == 1)
        var check: Int32 = 0
        #expect(notify_check(-1, &check) == UInt32(NOTIFY_STATUS_INVALID_TOKEN))
    }

    /// Every public or open top-level name declared in AppGroupFoundation's and
    /// notify's sources is Apple's: a name of the package's own there would reach
    /// every file that ports iOS code.
    @Test func theirSourcesDeclareApplesNamesOnly() throws {
        let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let declaration = try Regex(#"^(?:public|open) (?:final )?(?:struct|enum|class|protocol|typealias|func|let|var|actor) ([A-Za-z_][A-Za-z0-9_]*)"#)
        let apple = try Regex(#"^(NS|CF|kCF|notify_|NOTIFY_STATUS_|extensionContext$)"#)
        var names: Set<String> = []
        for module in ["AppGroupFoundation", "notify"] {
            let folder = top.appendingPathComponent("Sources/\(module)")
            let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            #expect(!files.isEmpty, "no sources found at \(folder.path)")
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    if let match = line.firstMatch(of: declaration), let name = match.output[1].substring { names.insert(String(name)) }
                }
            }
        }
        #expect(names.count > 20)
        #expect(names.filter { $0.firstMatch(of: apple) == nil }.sorted() == [])
    }

    /// UniformTypeIdentifiers declares Apple's names only (`UTType`, `UTTagClass`).
    @Test func uniformTypeIdentifiersDeclaresApplesNamesOnly() throws {
        let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let declaration = try Regex(#"^(?:public|open) (?:final )?(?:struct|enum|class|protocol|typealias|func|let|var|actor) ([A-Za-z_][A-Za-z0-9_]*)"#)
        let folder = top.appendingPathComponent("Sources/UniformTypeIdentifiers")
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var names: Set<String> = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let match = line.firstMatch(of: declaration), let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        #expect(names == ["UTType", "UTTagClass"])
    }
}
