import AppGroupContainer
import Foundation
import SharedKeychain

/// Case 14: `SecItemCopyMatching` of one item among 50. Each access group's items
/// lie in a file of their own, so a search without `kSecAttrAccessGroup` reads one
/// file per group the app holds (three here); one naming its group reads one.
func keychainCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "14. keychain: SecItemCopyMatching by access group")
    let count = run.count(20_000)
    let root = try run.scratch("keychain")
    // A root of its own coordination tree, as a simulated device's is.
    CoordinationTree.ensurePrepared(ContainerRoot(root))
    let vault = "A1B2C3D4E5.com.example.vault"
    let identity = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.reader",
                                    applicationGroups: ["group.com.example.suite"], keychainAccessGroups: [vault])
    let app = Keychain(device: try KeychainDevice(root: root, name: "bench"), identity: identity)
    for i in 0..<50 { try app.add(Data("v\(i)".utf8), for: GenericPassword(service: "s", account: "a\(i)")) }
    var turn = 0
    let reads = try measureInTurns([
        ("read, no group: 3 groups' files", {
            turn += 1
            _ = try app.read(GenericPassword(service: "s", account: "a\(turn % 50)"))
        }),
        ("read, its group named: 1 file", { _ = try app.read(GenericPassword(service: "s", account: "a\(turn % 50)", accessGroup: vault)) }),
    ], count: count, warmup: 100)
    let file = root.appendingPathComponent("floor").path
    _ = FileManager.default.createFile(atPath: file, contents: Data(count: 4096))
    let floor = measure("stat() (the floor)", count: count) { Floor.stat(file) }
    result.samples = [floor] + reads
    result.ratios.append(Ratio("no group / group named", reads[0].medianNs / reads[1].medianNs, atMost: 2))
    result.ratios.append(Ratio(report: "group named / stat()", reads[1].medianNs / floor.medianNs))
    return result
}
