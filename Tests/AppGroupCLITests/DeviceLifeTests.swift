import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import SharedKeychain
import Testing
import TestSupport

/// `create`, `erase` and an app's own container (`--bundle`), through the built binary.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct DeviceLifeTests {
    let group = CLIFixture.group

    @Test func createMakesTheContainerAnAppThenFinds() throws {
        let fixture = try CLIFixture()
        let made = "group.com.example.fixture"
        try fixture.fail(["path", made], status: 1, ["unknown group \(made)"])
        let path = try fixture.succeed(["create", made]).trimmingCharacters(in: .newlines)
        #expect(path == (try fixture.device.containerLocation(for: made)).path)
        for sub in ContainerResolver.standardSubdirectories {
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: path + "/" + sub, isDirectory: &isDirectory) && isDirectory.boolValue, "\(sub)")
        }
        #expect(try fixture.succeed(["path", made]) == path + "\n")
        #expect(try fixture.succeed(["create", made]) == path + "\n", "a second create leaves it and prints it")
        // A fixture written into it is what an app entitled to the group reads.
        try fixture.succeed(["defaults", "write", made, "seeded", "-int", "5"])
        let app = try SimulatedTarget(name: "fixture app", kind: .app, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.fixture",
                                  applicationGroups: [made])
        #expect(try fixture.device.run(as: app) { try SharedDefaults(requiringSuiteName: made, resolver: $0).object(forKey: "seeded") } as? Int == 5)

        try fixture.fail(["create", "bad..group"], status: 64, ["invalid App Group identifier"])
        let linked = "group.com.example.linked"
        try FileManager.default.createSymbolicLink(atPath: try fixture.device.containerLocation(for: linked).path, withDestinationPath: fixture.device.outside.path)
        try fixture.fail(["create", linked], status: 1, ["cannot make the container"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.device.outside.path).isEmpty, "nothing made through the link")
    }

    @Test func bundleReachesAnAppsPrivateSuites() throws {
        let fixture = try CLIFixture()
        let bundle = fixture.notes.app.bundleIdentifier
        try fixture.fail(["path", "--bundle", bundle], status: 1, ["unknown app \(bundle)", "no app container is present"])
        try fixture.fail(["defaults", "read", "--bundle", bundle], status: 1, ["unknown app \(bundle)"])
        #expect(!FileManager.default.fileExists(atPath: fixture.device.root.appendingPathComponent("Applications").path), "looking made nothing")
        // The app keeps a private setting (its own domain) and a private suite.
        try fixture.device.run(as: fixture.notes.app) { resolver in
            try SharedDefaults(requiringSuiteName: nil, resolver: resolver).save("private", forKey: "mine")
            try SharedDefaults(requiringSuiteName: "Drafts", resolver: resolver).save(3, forKey: "count")
        }
        let container = try fixture.succeed(["path", "--bundle", bundle]).trimmingCharacters(in: .newlines)
        #expect(container == fixture.device.root.appendingPathComponent("Applications/\(bundle)").path)
        #expect(try fixture.succeed(["defaults", "read", "--bundle", bundle, "mine"]) == "private\n")
        #expect(try fixture.succeed(["defaults", "read", "--bundle", bundle, "--suite", "Drafts"]) == "{\n    count = 3;\n}\n")
        try fixture.succeed(["defaults", "write", "--bundle", bundle, "mine", "changed"])
        #expect(try fixture.device.run(as: fixture.notes.app) { try SharedDefaults(requiringSuiteName: nil, resolver: $0).object(forKey: "mine") } as? String == "changed")
        // The group's suite is not the app's: no leak between them.
        try fixture.fail(["defaults", "read", group, "mine"], status: 1, ["domain \(group) does not exist"])
        try fixture.fail(["path", "--bundle", "bad bundle/id"], status: 64, [])
        try fixture.fail(["path", "--bundle", bundle, group], status: 64, ["no GROUP with --bundle"])
    }

    @Test func eraseEmptiesTheWholeDeviceAndFollowsNoLink() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("v", forKey: "k")
        try fixture.device.run(as: fixture.notes.app) { try SharedDefaults(requiringSuiteName: nil, resolver: $0).save(1, forKey: "own") }
        let keychainDevice = try KeychainDevice(root: fixture.device.root)
        try Keychain(device: keychainDevice, identity: fixture.notes.app.entitlements)
            .save(Data("s3cret".utf8), for: GenericPassword(service: "svc", account: "acct"))
        try keychainDevice.reboot()
        // A link planted in the root, to a directory outside it holding a file.
        let precious = fixture.device.outside.appendingPathComponent("precious.txt")
        try Data("keep me".utf8).write(to: precious)
        try FileManager.default.createSymbolicLink(atPath: fixture.device.root.appendingPathComponent("group.com.example.planted").path,
                                                   withDestinationPath: fixture.device.outside.path)
        try FileManager.default.createSymbolicLink(atPath: fixture.container.appendingPathComponent("Library/escape").path,
                                                   withDestinationPath: fixture.device.outside.path)

        try fixture.succeed(["erase"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.device.root.path).isEmpty, "the root stays, empty")
        #expect(try String(contentsOf: precious, encoding: .utf8) == "keep me", "nothing outside the root was touched")
        #expect(try keychainDevice.itemCount() == 0)
        #expect(try keychainDevice.state() == .unlocked, "the device state is gone: a fresh device")
        #expect(try fixture.succeed(["list"]) == "no groups under \(fixture.device.root.path)\n")
        try fixture.succeed(["erase"]) // an empty root erases again
    }

    @Test func eraseRefusesARootThatIsNotAnEmulatorRoot() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("v", forKey: "k")
        let stranger = fixture.device.root.appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: stranger, withIntermediateDirectories: false)
        try fixture.fail(["erase"], status: 1, ["refusing to erase \(fixture.device.root.path)", "'Documents'", "nothing was erased"])
        #expect(FileManager.default.fileExists(atPath: fixture.suiteFile.path), "nothing was erased")
        try FileManager.default.removeItem(at: stranger)
        try Data("x".utf8).write(to: fixture.device.root.appendingPathComponent("notes.txt"))
        try fixture.fail(["erase"], status: 1, ["'notes.txt'"])
        let hiddenDirectory = fixture.device.scratch.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: hiddenDirectory.appendingPathComponent(".config"), withIntermediateDirectories: true)
        try fixture.fail(["erase", "--root", hiddenDirectory.path], status: 1, ["'.config'"])
        try fixture.fail(["erase", "--root", fixture.device.scratch.appendingPathComponent("absent").path], status: 1, ["no container root"])
        #expect(FileManager.default.fileExists(atPath: fixture.suiteFile.path))
    }
}
