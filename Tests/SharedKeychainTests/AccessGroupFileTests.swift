#if !canImport(Darwin)
import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport

/// The items split by access group: the directory names, what a group's file may
/// hold, the calls that span several groups, and files of earlier versions.
@Suite(.dedicatedThreads) struct AccessGroupFileTests {
    @Test func directoryNamesAreExactBoundedAndNeverSpecial() throws {
        let names = ["A1B2C3D4E5.com.example.vault", "group.com.example.suite", "caf\u{E9}", "cafe\u{301}", ".", "..", "", ".hidden",
                     "a/b", "~x", "%41", "A", String(repeating: "x", count: 160), String(repeating: "x", count: 161),
                     String(repeating: "\u{E9}", count: 100)]
        var seen: [String: String] = [:]
        for group in names {
            let name = KeychainDevice.accessGroupDirectoryName(group)
            #expect(!name.isEmpty && name.utf8.count <= 160 + 5 && !name.hasPrefix(".") && !name.contains("/"), "\(group.debugDescription) -> \(name)")
            #expect(AccessGroupDirectoryName.isValid(name), "\(name)")
            if let other = seen[name] { Issue.record("\(group.debugDescription) and \(other.debugDescription) share \(name)") }
            seen[name] = group
            if !name.hasPrefix("~") { #expect(AccessGroupDirectoryName.decode(name).map { $0.isExactly(group) } == true, "\(name)") }
        }
        #expect(KeychainDevice.accessGroupDirectoryName("group.com.example.suite") == "group.com.example.suite")
        #expect(KeychainDevice.accessGroupDirectoryName("cafe\u{301}") == "cafe%CC%81")
        for junk in ["", ".", "..", "a/b", "%41", "%e9", "~abc", "a%", "x%2"] { #expect(!AccessGroupDirectoryName.isValid(junk), "\(junk)") }
    }

    @Test func twoSpellingsOfAGroupAreTwoDirectories() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let composed = "\(Targets.team).caf\u{E9}", decomposed = "\(Targets.team).cafe\u{301}"
        let identity = try Entitlements(teamIdentifier: Targets.team, bundleIdentifier: "com.example.twins", applicationGroups: [],
                                        keychainAccessGroups: [composed, decomposed])
        let keychain = box.keychain(identity)
        try keychain.add(Data("one".utf8), for: GenericPassword(service: "s", account: "a", accessGroup: composed))
        try keychain.add(Data("two".utf8), for: GenericPassword(service: "s", account: "a", accessGroup: decomposed))
        #expect(try keychain.read(GenericPassword(service: "s", account: "a", accessGroup: composed)) == Data("one".utf8))
        #expect(try keychain.read(GenericPassword(service: "s", account: "a", accessGroup: decomposed)) == Data("two".utf8))
        #expect(box.device.directory(forAccessGroup: composed) != box.device.directory(forAccessGroup: decomposed))
        #expect(try box.device.itemCount() == 2)
    }

    /// A target may write its own groups' files: an item of another group it puts
    /// there is refused (errSecInvalidKeychain naming the file), never taken for
    /// that group's item, and that group's own file still answers.
    @Test(.tags(.hostile)) func anItemPlantedInAnotherGroupsFileIsRefused() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try app.add(Data("real".utf8), for: GenericPassword(service: "s", account: "a", accessGroup: Targets.vault))
        var planted = try box.device.load(.group(Targets.vault))
        planted.items[0].value = Data("forged".utf8)
        planted.items[0].attributes[RawKey.account] = .string("b")
        let suiteFile = box.device.itemsURL(forAccessGroup: Targets.suite)
        try FileManager.default.createDirectory(at: suiteFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try PropertyListEncoder().encode(planted).write(to: suiteFile)

        let error = #expect(throws: SharedKeychain.KeychainError.self) { try app.read(GenericPassword(service: "s", account: "b")) }
        let message = error.map { "\($0)" } ?? ""
        #expect(error?.status == -25295 && message.contains(suiteFile.path) && message.contains(Targets.vault), "\(message)")
        #expect(try app.read(GenericPassword(service: "s", account: "a", accessGroup: Targets.vault)) == Data("real".utf8))
        #expect(throws: SharedKeychain.KeychainError.self) { try app.read(GenericPassword(service: "s", account: "b", accessGroup: Targets.vault)) }
    }

    @Test func callsSpanningGroupsSeeAndChangeEveryGroup() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try box.device.setPasscode(true)
        let inVault = GenericPassword(service: "s", account: "a", accessGroup: Targets.vault)
        try app.add(Data("v".utf8), for: inVault, accessibility: .whenPasscodeSetThisDeviceOnly)
        try app.add(Data("s".utf8), for: GenericPassword(service: "s", account: "b", accessGroup: Targets.suite), accessibility: .whenPasscodeSetThisDeviceOnly)
        try app.add(Data("k".utf8), for: GenericPassword(service: "s", account: "c", accessGroup: Targets.suite))
        let all = try app.copyMatching([RawKey.class: RawKey.genericPassword, RawKey.returnAttributes: true, RawKey.matchLimit: RawKey.matchLimitAll]) as? [[String: Any]]
        #expect(all?.count == 3)

        // A move between groups: one file gains it, the other loses it, its reference stays.
        let reference = try app.copyMatching(inVault.query.merging([RawKey.returnPersistentRef: true]) { $1 }) as? Data
        try app.move(GenericPassword(service: "s", account: "a"), toAccessGroup: Targets.suite, accessibility: .whenPasscodeSetThisDeviceOnly)
        #expect(try box.device.load(.group(Targets.vault)).items.isEmpty)
        #expect(try box.device.load(.group(Targets.suite)).items.count == 3)
        let moved = try app.copyMatching([RawKey.class: RawKey.genericPassword, RawKey.valuePersistentRef: reference as Any,
                                          RawKey.returnAttributes: true]) as? [String: Any]
        #expect(moved?[RawKey.accessGroup] as? String == Targets.suite)

        let summaries = try box.device.itemSummaries()
        #expect(summaries.count == 3 && Set(summaries.map(\.accessGroup)) == [Targets.suite])
        #expect(try box.device.setPasscode(false) == 2, "the WhenPasscodeSet items of every group go")
        #expect(try box.device.itemCount() == 1)
        var filter = KeychainItemFilter()
        filter.account = "c"
        #expect(try box.device.deleteItems(matching: filter).count == 1)
        try app.add(Data("x".utf8), for: GenericPassword(service: "s", account: "d", accessGroup: Targets.vault))
        try box.device.erase()
        #expect(try box.device.itemCount() == 0)
    }

    /// A file of an earlier version (every group in one file) is split by the
    /// first process that is not a target, once, and removed; an interrupted split
    /// done again adds nothing twice.
    @Test func aLegacyFileIsSplitIntoTheGroupsFiles() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try LegacyKeychain.write(on: box.device, [(Targets.vault, "a", "one"), (Targets.suite, "b", "two")])
        let legacy = try Data(contentsOf: box.device.legacyKeychainURL)
        let app = box.keychain(Targets.app)
        #expect(try app.read(GenericPassword(service: "s", account: "a")) == Data("one".utf8))
        #expect(!FileManager.default.fileExists(atPath: box.device.legacyKeychainURL.path))
        #expect(try box.device.load(.group(Targets.vault)).items.count == 1)
        #expect(try box.device.load(.group(Targets.suite)).items.count == 1)

        // As if the first split had been killed before it removed the file.
        try legacy.write(to: box.device.legacyKeychainURL)
        #expect(try box.device.itemCount() == 2)
        #expect(!FileManager.default.fileExists(atPath: box.device.legacyKeychainURL.path))
        #expect(try app.read(GenericPassword(service: "s", account: "b")) == Data("two".utf8))
    }
}
#endif
