#if !canImport(Darwin)
import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

/// CFPreferences and UserDefaults on one group suite, from two
/// processes (DefaultsProbe's CFPreferencesCommands.swift and UserDefaultsCommands.swift).
@Suite("CFPreferences across processes", .tags(.multiprocess), .serialized, .dedicatedThreads)
struct CFPreferencesProcessTests {
    func run(_ device: Device, _ arguments: [String], as identity: Entitlements) throws -> String {
        let outcome = try device.probe(arguments, as: identity).wait(timeout: 60)
        #expect(outcome.succeeded, "\(arguments) as \(identity.bundleIdentifier): \(outcome.standardError)")
        return outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a value written with CFPreferences is read with UserDefaults in another process, and back")
    func oneSuiteTwoAPIs() throws {
        let device = try Device()
        let suite = ["--suite", Device.group]
        #expect(try run(device, ["cf-set", "--key", "lastCapture", "--value", "IMG_0042"] + suite, as: device.share) == "synchronized")
        #expect(try run(device, ["ud-get", "--key", "lastCapture"] + suite, as: device.app) == "IMG_0042")
        #expect(try run(device, ["ud-set", "--key", "mode", "--value", "burst"] + suite, as: device.app) == "done")
        #expect(try run(device, ["cf-get", "--key", "mode"] + suite, as: device.share) == "burst")
        #expect(try run(device, ["cf-keys"] + suite, as: device.share) == "keys lastCapture,mode\nforced false")
        // The same file: the suite the package opens sees both.
        #expect(try device.defaults().string(forKey: "lastCapture") == "IMG_0042")
        #expect(try run(device, ["cf-set", "--key", "lastCapture", "--remove"] + suite, as: device.app) == "synchronized")
        #expect(try run(device, ["ud-get", "--key", "lastCapture"] + suite, as: device.share) == "nil")
        #expect(try run(device, ["cf-get", "--key", "lastCapture"] + suite, as: device.share) == "nil")
    }

    @Test("keys are exact UTF-16 spellings: two normalizations are two keys, as CFString compares them")
    func exactKeys() throws {
        let device = try Device()
        let suite = ["--suite", Device.group]
        _ = try run(device, ["cf-set", "--key", "caf\u{E9}", "--value", "one"] + suite, as: device.app)
        _ = try run(device, ["cf-set", "--key", "cafe\u{301}", "--value", "two"] + suite, as: device.share)
        #expect(try run(device, ["cf-get", "--key", "caf\u{E9}"] + suite, as: device.share) == "one")
        #expect(try run(device, ["cf-get", "--key", "cafe\u{301}"] + suite, as: device.app) == "two")
        #expect(try device.defaults().storedKeys().count == 2)
    }

    @Test("an observer of the suite sees CFPreferences writes made by another process")
    func observation() throws {
        let device = try Device()
        let watcher = try device.probe(["watch", "--suite", Device.group, "--key", "captures", "--until", "3"], as: device.app)
        #expect(watcher.waitForLine("ready", timeout: 60), "\(watcher.standardError)")
        for n in 1...3 {
            #expect(try run(device, ["cf-set", "--suite", Device.group, "--key", "captures", "--int", "\(n)"], as: device.share) == "synchronized")
        }
        let end = watcher.wait(timeout: 60)
        #expect(end.succeeded, "\(end)")
        #expect(end.outputLines.last == "3")
    }

    @Test("in process: CopyAppValue reads no registered default; the domains not kept answer nothing")
    func inProcessEdges() throws {
        let device = try Device()
        try IdentityScope(entitlements: device.app, root: device.root).run { () throws -> Void in
            try device.defaults().register(defaults: ["registered": "r"])
            #expect(CFPreferencesCopyAppValue("registered" as CFString, Device.group as CFString) == nil)
            CFPreferencesSetAppValue("n" as CFString, NSNumber(value: 7), Device.group as CFString)
            #expect(CFPreferencesCopyAppValue("n" as CFString, Device.group as CFString) as? Int == 7)
            #expect(CFPreferencesCopyKeyList(Device.group as CFString, kCFPreferencesCurrentUser, kCFPreferencesCurrentHost) == nil)
            #expect(!CFPreferencesAppSynchronize(kCFPreferencesAnyApplication))
            #expect(!CFPreferencesAppValueIsForced("n" as CFString, Device.group as CFString))
        }
    }
}
#endif
