#if !canImport(Darwin)
import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

/// UserDefaults as iOS code uses it, in real processes (DefaultsProbe, whose
/// UserDefaults is the emulator's through `import class SharedDefaults.UserDefaults`),
/// each with its own identity from the environment.
@Suite("UserDefaults across processes", .tags(.multiprocess), .serialized, .dedicatedThreads)
struct UserDefaultsProcessTests {
    /// Runs a probe to its end and returns its standard output, trimmed.
    func run(_ device: Device, _ arguments: [String], as identity: Entitlements, quiet: Bool = true) throws -> (output: String, error: String) {
        let outcome = try device.probe(arguments, as: identity, quiet: quiet).wait(timeout: 60)
        #expect(outcome.succeeded, "\(arguments) as \(identity.bundleIdentifier): \(outcome.standardError)")
        return (outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines), outcome.standardError)
    }

    @Test("the App Groups guide's defaults example, unchanged but for imports: the extension writes, the app reads then clears")
    func guideExample() throws {
        let device = try Device()
        let shared = "https://example.com/article?id=42"
        #expect(try run(device, ["guide-extension", "--url", shared], as: device.share).output == "done")
        #expect(try run(device, ["guide-app"], as: device.app).output == "saved \(shared)\ndone")
        // Consumed once: the next launch finds nothing.
        #expect(try run(device, ["guide-app"], as: device.app).output == "done")
        #expect(try device.defaults().object(forKey: "pendingURL") == nil)
        #expect(SimulatedDevice.files(under: device.foundationPreferences).isEmpty, "Foundation's own preferences were written")
    }

    @Test("didChangeNotification stays in-process, as Apple documents, while observation of the suite hears the other process")
    func didChangeNotificationStaysInProcess() throws {
        let device = try Device()
        let defaults = try #require(UserDefaults(suiteName: Device.group, resolver: device.resolver(device.app)))
        let posted = Counter()
        let token = NotificationCenter.default.addObserver(forName: Foundation.UserDefaults.didChangeNotification, object: nil, queue: nil) { _ in
            posted.add()
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let heard = Counter()
        let observation = try device.defaults().addObserver(forKey: "theme") { _ in heard.add() }
        defer { observation.cancel() }
        #expect(try run(device, ["ud-set", "--suite", Device.group, "--key", "theme", "--value", "dark"], as: device.share).output == "done")
        #expect(eventually(seconds: 30) { heard.value >= 1 }, "the observer of the suite never heard the other process's change")
        #expect(defaults.string(forKey: "theme") == "dark")
        #expect(posted.value == 0, "didChangeNotification was posted for another process's change")
    }

    @Test("UserDefaults.standard persists, is shared by processes of one target, and is private to it")
    func standardSuite() throws {
        let device = try Device()
        #expect(try run(device, ["ud-set", "--standard", "1", "--key", "theme", "--value", "dark"], as: device.app).output == "done")
        #expect(try run(device, ["ud-get", "--standard", "1", "--key", "theme"], as: device.app).output == "dark")
        #expect(try run(device, ["ud-get", "--standard", "1", "--key", "theme"], as: device.share).output == "nil")
        // In the target's own storage, where SharedDefaults(suiteName: nil) opens it; not in Foundation's files.
        #expect(try device.defaults(nil).string(forKey: "theme") == "dark")
        #expect(SimulatedDevice.files(under: device.foundationPreferences).isEmpty, "Foundation's own preferences were written")
    }

    @Test("a launch argument -key value comes first in the search list, as on iOS, and is never written")
    func argumentDomain() throws {
        let device = try Device()
        #expect(try run(device, ["ud-set", "--suite", Device.group, "--key", "theme", "--value", "dark"], as: device.app).output == "done")
        #expect(try run(device, ["ud-get", "--suite", Device.group, "--key", "theme", "-theme", "light"], as: device.app).output == "light")
        #expect(try run(device, ["ud-get", "--standard", "1", "--key", "theme", "-theme", "light"], as: device.app).output == "light")
        #expect(try device.defaults().string(forKey: "theme") == "dark")
    }

    @Test("UserDefaults.standard in a process without an identity writes nothing and says why")
    func standardWithoutIdentity() throws {
        let device = try Device()
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("APP_GROUP_") }
        environment["APP_GROUP_CONTAINERS_ROOT"] = device.root.path
        environment["XDG_CONFIG_HOME"] = device.foundationPreferences.path
        let outcome = try LaunchedProcess(built: "DefaultsProbe", arguments: ["ud-set", "--standard", "1", "--key", "k", "--value", "v"],
                                          environment: environment).wait(timeout: 60)
        #expect(outcome.status == 1 && outcome.standardError.contains("no process identity"), "\(outcome.standardError)")
        #expect(SimulatedDevice.files(under: device.root).isEmpty && SimulatedDevice.files(under: device.foundationPreferences).isEmpty)
    }

    @Test("static let shared and an API typed UserDefaults, as iOS code declares them, reach the group's suite")
    func sharedIdiom() throws {
        let device = try Device()
        let url = "https://example.com/idiom"
        #expect(try run(device, ["idiom-shared", "--url", url], as: device.share).output == "done")
        #expect(try device.defaults().string(forKey: "lastURL") == url)
    }

    @Test("a target that never joined the group gets a private suite: it reads nothing of the app's, the app nothing of its")
    func privateSuiteForOutsider() throws {
        let device = try Device()
        let group = ["--suite", Device.group, "--key", "pendingURL"]
        #expect(try run(device, ["ud-set"] + group + ["--value", "from the app"], as: device.app).output == "done")
        let outsider = try run(device, ["ud-set"] + group + ["--value", "from the outsider"], as: device.outsider, quiet: false)
        #expect(outsider.output == "done")
        #expect(outsider.error.contains("UserDefaults(suiteName: \"\(Device.group)\"): ai.systenics.other is not entitled to the App Group"),
                "the loud line: \(outsider.error)")
        #expect(outsider.error.contains("private to ai.systenics.other"))
        #expect(try run(device, ["ud-get"] + group, as: device.outsider).output == "from the outsider")
        #expect(try run(device, ["ud-get"] + group, as: device.app).output == "from the app")
        #expect(try run(device, ["ud-get"] + group, as: device.share).output == "from the app")
        // The outsider's suite sits in its own storage, beside its standard domain.
        let privateFile = device.root.appendingPathComponent("Applications/ai.systenics.other/Library/Preferences/\(Device.group).plist")
        #expect(FileManager.default.fileExists(atPath: privateFile.path))
        let lenient = try #require(SharedDefaults(suiteName: Device.group, resolver: device.resolver(device.outsider)))
        #expect(lenient.isPrivateFallback && lenient.groupIdentifier == nil && lenient.fileURL.path == privateFile.path)
    }
}

#endif
