#if !canImport(Darwin)
import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport

/// The keychain's items against sandboxed targets that go around the library: each
/// access group's items lie in a directory of their own, and the kernel lets a target
/// reach only the directories of the groups its entitlements make it hold, as
/// securityd filters by access group on iOS. Every other keychain directory (the
/// device's `Keychains`, `Keychains/AccessGroups`, other groups') it can neither
/// read, list, replace, rename nor plant a file in.
@Suite(.tags(.hostile, .multiprocess), .simulatedDevices, .requiresSandbox(.fail))
struct AccessGroupSandboxTests {
    static let environment = [KeychainDevice.environmentKey: "phone"]

    static func app() throws -> SimulatedTarget {
        try SimulatedTarget(name: "Vault", kind: .app, teamIdentifier: Targets.team, bundleIdentifier: "com.example.reader",
                            applicationGroups: [Targets.suite], keychainAccessGroups: [Targets.vault])
    }

    /// Holds the App Group and its own application identifier, not the Keychain Sharing group.
    static func notify() -> SimulatedTarget {
        SimulatedTarget(name: "Notify", kind: .notificationExtension, entitlements: Targets.bareExtension)
    }

    static func probe(_ device: SimulatedDevice, _ arguments: [String], as target: SimulatedTarget,
                      extra: [String: String] = [:]) async throws -> ProcessOutcome {
        try await device.run(built: "KeychainProbe", arguments, as: target, environment: environment.merging(extra) { $1 }, timeout: 120)
    }

    /// Found in review: every group's items were in one file every target could
    /// read and write, so a target holding no keychain group read them all.
    @Test func aTargetCannotReadTheFileOfAGroupItDoesNotHold() async throws {
        try await SimulatedDevice.with { device in
            let add = try await Self.probe(device, ["add", "--service", "s", "--account", "a", "--group", Targets.vault, "--value", "vault-secret-1234"], as: try Self.app())
            #expect(add.outputLines == ["status=0"], "\(add)")
            let viaLibrary = try await Self.probe(device, ["read", "--service", "s", "--account", "a"], as: Self.notify())
            #expect(viaLibrary.outputLines == ["status=-25300"], "the library hides the item: \(viaLibrary)")
            let direct = try await Self.probe(device, ["tamper-keychain", "--group", Targets.vault, "--find", "vault-secret-1234"], as: Self.notify())
            #expect(direct.outputLines == ["unreadable phone.keychain-db"], "the kernel refuses the vault group's file: \(direct)")

            // The same probe reaches a group the target holds (the App Group): the
            // refusal above is the sandbox's, not the probe's.
            let shared = try await Self.probe(device, ["add", "--service", "s", "--account", "b", "--group", Targets.suite, "--value", "suite-secret-5678"], as: try Self.app())
            #expect(shared.outputLines == ["status=0"], "\(shared)")
            let own = try await Self.probe(device, ["tamper-keychain", "--group", Targets.suite, "--find", "suite-secret-5678"], as: Self.notify())
            #expect(own.outputLines.first == "found", "\(own)")
            let intact = try await Self.probe(device, ["read", "--service", "s", "--account", "a", "--expect", "vault-secret-1234"], as: try Self.app())
            #expect(intact.outputLines == ["status=0 match"], "\(intact)")
        }
    }

    /// Every way around the library into another group's directory, or into the
    /// device's own keychain directories (a legacy file planted there would be read
    /// by the next process that is not a target), is refused by the kernel.
    @Test func aTargetCannotListReplaceRenameOrPlantInAnotherGroupsDirectory() async throws {
        try await SimulatedDevice.with { device in
            let keychain = try KeychainDevice(root: device.root, name: "phone")
            let add = try await Self.probe(device, ["add", "--service", "s", "--account", "a", "--group", Targets.vault, "--value", "vault-secret"], as: try Self.app())
            #expect(add.outputLines == ["status=0"], "\(add)")
            let before = try Data(contentsOf: keychain.itemsURL(forAccessGroup: Targets.vault))

            let attack = try await Self.probe(device, ["tamper-keychain-tree", "--group", Targets.vault], as: Self.notify())
            #expect(attack.outputLines.count == 13, "\(attack)")
            for line in attack.outputLines {
                #expect(line.hasPrefix("refused "), "\(line)")
            }

            #expect(try Data(contentsOf: keychain.itemsURL(forAccessGroup: Targets.vault)) == before, "the group's file is as the app left it")
            #expect(try FileManager.default.contentsOfDirectory(atPath: keychain.directory(forAccessGroup: Targets.vault).path) == ["phone.keychain-db"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: keychain.directory.path).sorted() == ["AccessGroups", "FileBased"])
            let groups = try FileManager.default.contentsOfDirectory(atPath: keychain.accessGroupsDirectory.path)
            #expect(!groups.contains("moved") && !groups.contains("group.forged"), "\(groups)")
            let read = try await Self.probe(device, ["read", "--service", "s", "--account", "a", "--expect", "vault-secret"], as: try Self.app())
            #expect(read.outputLines == ["status=0 match"], "the app that holds the group still reads its item: \(read)")

            // The same attack on a group the target holds does what it says: the
            // probe is not refused by anything but the sandbox.
            let own = Targets.bareExtension.applicationIdentifier
            let mine = try await Self.probe(device, ["add", "--service", "s", "--account", "n", "--value", "mine"], as: Self.notify())
            #expect(mine.outputLines == ["status=0"], "\(mine)")
            let allowed = try await Self.probe(device, ["tamper-keychain-tree", "--group", own], as: Self.notify())
            #expect(Array(allowed.outputLines.prefix(3)) == ["did read the group's items", "did list the group's directory",
                                                              "did plant a file in the group's directory"], "\(allowed)")
        }
    }

    /// The library's own check runs in the target's process: a target that claims a
    /// group (its environment says it holds it) gets past it, and the kernel refuses.
    @Test func aTargetClaimingAGroupItsEntitlementsLackIsRefusedByTheKernel() async throws {
        try await SimulatedDevice.with { device in
            let keychain = try KeychainDevice(root: device.root, name: "phone")
            let add = try await Self.probe(device, ["add", "--service", "s", "--account", "a", "--group", Targets.vault, "--value", "vault-secret"], as: try Self.app())
            #expect(add.outputLines == ["status=0"], "\(add)")
            let claim = [Entitlements.EnvironmentKey.keychainAccessGroups: Targets.vault]
            let read = try await Self.probe(device, ["read", "--service", "s", "--account", "a", "--group", Targets.vault], as: Self.notify(), extra: claim)
            #expect(read.outputLines == ["status=-36"], "errSecIO: the kernel refused the group's directory: \(read)")
            #expect(read.standardError.contains("Permission denied (EACCES"), "\(read.standardError.prefix(400))")
            let forge = try await Self.probe(device, ["add", "--service", "s", "--account", "forged", "--group", Targets.vault, "--value", "forged"], as: Self.notify(), extra: claim)
            #expect(forge.outputLines == ["status=-36"], "\(forge)")
            #expect(try keychain.itemCount() == 1, "nothing was added")
        }
    }

    /// Sharing still works where the entitlements say so: the Keychain Sharing group
    /// between the app and its share extension, the App Group between the app and a
    /// notification extension that has no Keychain Sharing.
    @Test func targetsSharingAGroupStillExchangeItems() async throws {
        try await SimulatedDevice.with { device in
            let share = SimulatedTarget(name: "Share", kind: .shareExtension, entitlements: Targets.share)
            let add = try await Self.probe(device, ["add", "--service", "s", "--account", "a", "--group", Targets.vault, "--value", "shared-by-app"], as: try Self.app())
            #expect(add.outputLines == ["status=0"], "\(add)")
            let read = try await Self.probe(device, ["read", "--service", "s", "--account", "a", "--expect", "shared-by-app"], as: share)
            #expect(read.outputLines == ["status=0 match"], "\(read)")
            let fromNotify = try await Self.probe(device, ["add", "--service", "s", "--account", "n", "--group", Targets.suite, "--value", "from-notify"], as: Self.notify())
            #expect(fromNotify.outputLines == ["status=0"], "\(fromNotify)")
            let back = try await Self.probe(device, ["read", "--service", "s", "--account", "n", "--expect", "from-notify"], as: try Self.app())
            #expect(back.outputLines == ["status=0 match"], "\(back)")
            let count = try await Self.probe(device, ["count"], as: Self.notify())
            #expect(count.outputLines == ["visible=1"], "the notification extension sees the App Group's item only: \(count)")
        }
    }

    /// A keychain file of an earlier version (every group in one file) is split by
    /// the device before it launches a target: the target finds its items.
    @Test func aLegacyKeychainFileIsSplitBeforeATargetRuns() async throws {
        try await SimulatedDevice.with { device in
            let keychain = try KeychainDevice(root: device.root, name: "phone")
            try LegacyKeychain.write(on: keychain, [(Targets.vault, "a", "vault-legacy"), (Targets.suite, "b", "suite-legacy")])
            let read = try await Self.probe(device, ["read", "--service", "s", "--account", "a", "--expect", "vault-legacy"], as: try Self.app())
            #expect(read.outputLines == ["status=0 match"], "\(read)")
            let other = try await Self.probe(device, ["read", "--service", "s", "--account", "b", "--expect", "suite-legacy"], as: Self.notify())
            #expect(other.outputLines == ["status=0 match"], "\(other)")
            #expect(!FileManager.default.fileExists(atPath: keychain.legacyKeychainURL.path), "the legacy file is gone")
            #expect(try keychain.itemCount() == 2)
        }
    }
}

/// Writes a keychain file as earlier versions did: every group's items of a device in
/// `Keychains/<device>.keychain-db`.
enum LegacyKeychain {
    static func write(on device: KeychainDevice, _ items: [(group: String, account: String, value: String)]) throws {
        let scratch = try KeychainDevice(root: device.root.appendingPathComponent("legacy-scratch"), name: device.name)
        defer { try? FileManager.default.removeItem(at: scratch.root) }
        for item in items {
            let identity = try Entitlements(teamIdentifier: Targets.team, bundleIdentifier: "com.example.legacy",
                                            applicationGroups: [Targets.suite], keychainAccessGroups: [item.group])
            try Keychain(device: scratch, identity: identity)
                .add(Data(item.value.utf8), for: GenericPassword(service: "s", account: item.account, accessGroup: item.group), accessibility: .afterFirstUnlock)
        }
        let content = try scratch.loadItems(scratch.presentParts())
        try FileManager.default.createDirectory(at: device.directory, withIntermediateDirectories: true)
        try PropertyListEncoder().encode(content).write(to: device.legacyKeychainURL)
    }
}
#endif
