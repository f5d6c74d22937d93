// These tests call the emulator's SecItem functions; on Darwin those names are
// Apple's own, so the tests run where the Security framework is absent.
#if !canImport(Darwin)

import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport
import Security

/// Issue 27, item 4: persistent references, in processes of their own (KeychainProbe's
/// PersistentRefCommands.swift holds the two shapes of shipped code, in its own words).
@Suite(.tags(.multiprocess), .dedicatedThreads) struct PersistentReferenceTests {
    static func reference(_ line: String) -> String? {
        line.split(separator: " ").first { $0.hasPrefix("ref=") }.map { String($0.dropFirst(4)) }
    }

    /// A tunnel profile's secret saved by the app with its reference returned, then
    /// opened by that reference alone in the extension's process.
    @Test func aReferenceSavedByOneTargetOpensTheItemInAnother() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.environment(Targets.app), share = box.environment(Targets.share)
        let saved = try Probe.run(["profile-save", "--name", "Office", "--secret", "s3cret", "--group", Targets.vault], app)
        #expect(saved.stdout.hasPrefix("status=0 ref="), "\(saved.stdout) \(saved.stderr)")
        let ref = try #require(Self.reference(saved.stdout))
        #expect(ref.count == 2 * PersistentReference.length)
        #expect(try Probe.run(["profile-open", "--ref", ref, "--expect", "s3cret"], share).stdout == "status=0 match")
        #expect(try Probe.run(["profile-open", "--ref", ref, "--expect", "s3cret", "--no-class"], share).stdout == "status=0 match")
        // Saved again (a duplicate): updated, and the same reference comes back.
        let again = try Probe.run(["profile-save", "--name", "Office", "--secret", "n3w", "--group", Targets.vault], app)
        #expect(Self.reference(again.stdout) == ref, "\(again.stdout)")
        // Update and delete by reference, from the other target.
        #expect(try Probe.run(["profile-rotate", "--ref", ref, "--secret", "r0tated"], share).stdout == "status=0")
        #expect(try Probe.run(["profile-open", "--ref", ref, "--expect", "r0tated"], app).stdout == "status=0 match")
        #expect(try Probe.run(["profile-forget", "--ref", ref], share).stdout == "status=0")
        #expect(try Probe.run(["profile-open", "--ref", ref], app).stdout == "status=-25300")
    }

    /// A key-value store over the keychain with an access group, from two targets.
    @Test func aStoreWithAnAccessGroupWorksFromTwoTargets() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.environment(Targets.app), share = box.environment(Targets.share)
        let group = ["--group", Targets.vault]
        #expect(try Probe.run(["store-set", "--key", "theme", "--value", "dark"] + group, app).stdout == "set true")
        #expect(try Probe.run(["store-set", "--key", "token", "--value", "abc"] + group, share).stdout == "set true")
        #expect(try Probe.run(["store-set", "--key", "theme", "--value", "light"] + group, share).stdout == "set true")
        #expect(try Probe.run(["store-keys"] + group, app).stdout == "keys theme,token")
        #expect(try Probe.run(["store-get", "--key", "theme"] + group, app).stdout == "get light")
        #expect(try Probe.run(["store-delete", "--key", "token"] + group, app).stdout == "delete true")
        #expect(try Probe.run(["store-keys"] + group, share).stdout == "keys theme")
        #expect(try Probe.run(["store-clear"] + group, share).stdout == "clear true")
        #expect(try Probe.run(["store-keys"] + group, app).stdout == "keys", "trimmed: no keys left")
        #expect(try Probe.run(["store-get", "--key", "theme"] + group, app).stdout == "get nil")
    }

    /// A target that does not hold the item's group is answered errSecItemNotFound,
    /// as securityd answers (a search covers only the caller's groups), never the item.
    @Test func aReferenceToAGroupTheCallerCannotReachIsNotFound() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let saved = try Probe.run(["profile-save", "--name", "Home", "--secret", "x", "--group", Targets.vault], box.environment(Targets.app))
        let ref = try #require(Self.reference(saved.stdout), "\(saved.stdout) \(saved.stderr)")
        let outsider = box.environment(Targets.bareExtension)
        #expect(try Probe.run(["profile-open", "--ref", ref], outsider).stdout == "status=-25300")
        #expect(try Probe.run(["profile-rotate", "--ref", ref, "--secret", "y"], outsider).stdout == "status=-25300")
        #expect(try Probe.run(["profile-forget", "--ref", ref], outsider).stdout == "status=-25300")
        #expect(try Probe.run(["profile-open", "--ref", ref, "--expect", "x"], box.environment(Targets.app)).stdout == "status=0 match")
    }

    @Test func malformedReferencesAreParameterErrorsOrNotFoundNeverAnotherItem() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let keychain = box.keychain(Targets.app)
        let first = try #require(try keychain.add([kSecClass: kSecClassGenericPassword, kSecAttrService: "s", kSecAttrAccount: "a",
                                                   kSecValueData: Data("one".utf8), kSecReturnPersistentRef: true]) as? Data)
        _ = try keychain.add([kSecClass: kSecClassGenericPassword, kSecAttrService: "s", kSecAttrAccount: "b", kSecValueData: Data("two".utf8)])
        func status(_ reference: Any, classed: Bool = true) -> Int32 {
            var query: [String: Any] = [kSecValuePersistentRef: reference, kSecReturnData: true]
            if classed { query[kSecClass] = kSecClassGenericPassword }
            do {
                _ = try keychain.copyMatching(query)
                return 0
            } catch let error as SharedKeychain.KeychainError {
                return error.status
            } catch {
                return 1
            }
        }
        #expect(status(Data()) == SecStatus.param)
        #expect(status(first.dropLast()) == SecStatus.param, "wrong length")
        #expect(status(first + Data([0])) == SecStatus.param, "wrong length")
        #expect(status(Data("xxxx".utf8) + first.dropFirst(4)) == SecStatus.param, "no such class")
        #expect(status("not data") == SecStatus.param)
        var crafted = first
        crafted[crafted.index(before: crafted.endIndex)] ^= 0xFF
        #expect(status(crafted) == SecStatus.itemNotFound, "crafted bytes name no item")
        #expect(status(Data("inet".utf8) + first.dropFirst(4), classed: false) == SecStatus.itemNotFound, "another class's reference")
        #expect(status(Data("inet".utf8) + first.dropFirst(4)) == SecStatus.itemNotFound, "a reference of another class than kSecClass")
        // Another device's reference: same shape, another identifier.
        let other = try Sandbox()
        defer { other.remove() }
        let foreign = try #require(try other.keychain(Targets.app).add([kSecClass: kSecClassGenericPassword, kSecAttrService: "s",
                                                                       kSecAttrAccount: "a", kSecValueData: Data("elsewhere".utf8),
                                                                       kSecReturnPersistentRef: true]) as? Data)
        #expect(status(foreign) == SecStatus.itemNotFound)
        #expect(try keychain.copyMatching([kSecValuePersistentRef: first, kSecReturnData: true]) as? Data == Data("one".utf8))
        // Not in an add, nor in the attributes to update.
        #expect(throws: SharedKeychain.KeychainError.self) {
            try keychain.add([kSecClass: kSecClassGenericPassword, kSecAttrAccount: "c", kSecValuePersistentRef: first])
        }
        #expect(throws: SharedKeychain.KeychainError.self) {
            try keychain.update([kSecClass: kSecClassGenericPassword, kSecAttrAccount: "a"], with: [kSecValuePersistentRef: first])
        }
    }

    @Test func resultShapesAndStabilityAcrossAMoveBetweenGroups() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let keychain = box.keychain(Targets.app)
        let reference = try #require(try keychain.add([kSecClass: kSecClassGenericPassword, kSecAttrService: "s", kSecAttrAccount: "a",
                                                       kSecAttrAccessGroup: Targets.vault, kSecValueData: Data("v".utf8),
                                                       kSecReturnPersistentRef: true]) as? Data)
        let both = try #require(try keychain.copyMatching([kSecValuePersistentRef: reference, kSecReturnData: true,
                                                           kSecReturnPersistentRef: true]) as? [String: Any])
        #expect(both[kSecValueData] as? Data == Data("v".utf8))
        #expect(both[kSecValuePersistentRef] as? Data == reference)
        #expect(both[kSecAttrAccount] == nil, "no attributes unless asked")
        let rows = try #require(try keychain.copyMatching([kSecClass: kSecClassGenericPassword, kSecReturnAttributes: true,
                                                           kSecReturnPersistentRef: true, kSecMatchLimit: kSecMatchLimitAll]) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?[kSecValuePersistentRef] as? Data == reference)
        #expect(rows.first?[kSecAttrAccount] as? String == "a")
        try keychain.move(GenericPassword(service: "s", account: "a", accessGroup: Targets.vault), toAccessGroup: Targets.suite)
        let moved = try #require(try keychain.copyMatching([kSecValuePersistentRef: reference, kSecReturnAttributes: true]) as? [String: Any])
        #expect(moved[kSecAttrAccessGroup] as? String == Targets.suite, "the same reference finds the moved item")
        try keychain.update([kSecValuePersistentRef: reference], with: [kSecValueData: Data("w".utf8)])
        #expect(try keychain.copyMatching([kSecValuePersistentRef: reference, kSecReturnData: true]) as? Data == Data("w".utf8))
        #expect(try keychain.delete([kSecValuePersistentRef: reference]) == 1)
    }
}
#endif
