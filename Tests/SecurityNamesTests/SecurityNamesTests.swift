// Compiles as an app's module that imports Apple's two frameworks beside its own
// types of the same names as the package's API: with `import Security` exposing
// anything but Apple's vocabulary, the uses below would be ambiguous and this
// target would not compile (Swift's message was then "failed to produce
// diagnostic for expression").
import Foundation
import LocalAuthentication
import Security
import SecurityNamesFixture
import Testing

struct OwnKey: KeychainItemKey { var name: String { "token" } }

@Suite struct SecurityNamesTests {
    @Test func anAppsOwnTypesKeepTheirNamesBesideSecurityAndLocalAuthentication() throws {
        let keychain = Keychain(service: "reader")
        let error: Error = KeychainError.notFound
        let accessibility = Accessibility.whenUnlocked
        let failure = AuthenticationFailure()
        let state = DeviceState()
        let passwords = (GenericPassword(), InternetPassword())
        let kind = ItemClass.password
        let control = KeychainAccessControl()
        let device = KeychainDevice()
        let biometry = SimulatedBiometry()
        let entitlements = Entitlements()
        let line = Diagnostics.log("hello")
        let groupError: Error = AppGroupError.missing
        let group = GroupIdentifier()
        let resolver = ContainerResolver()
        #expect(keychain.service == "reader")
        #expect(error is KeychainError && groupError is AppGroupError)
        #expect(accessibility == .whenUnlocked && kind == .password)
        #expect(!state.isLocked && passwords.0.account == "me" && passwords.1.server == "example.com")
        #expect(entitlements.groups.isEmpty && line == "hello" && group.value == "group.x")
        #expect(OwnKey().name == "token" && control.flags == 0)
        _ = (failure, device, biometry, resolver)
    }

    /// Apple's vocabulary still answers through the two modules.
    @Test func applesNamesStillWork() {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "nobody",
                                    kSecReturnData as String: true]
        var result: CFTypeRef?
        let status: OSStatus = SecItemCopyMatching(query as CFDictionary, &result)
        // No identity in this test process: the keychain refuses, in Apple's words.
        #expect(status != errSecSuccess)
        let context = LAContext()
        #expect(LAPolicy.deviceOwnerAuthentication != LAPolicy.deviceOwnerAuthenticationWithBiometrics)
        _ = context
    }

    /// The fixture's list is every public name of SharedKeychain that is not
    /// Apple's, read from its sources: a new public type there must join the list
    /// (and so be proved not to reach `import Security`).
    @Test func theFixtureCoversEveryNonAppleNameOfSharedKeychain() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SharedKeychain")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(!files.isEmpty, "no sources found at \(sources.path)")
        let declaration = try Regex(#"^(?:public|open) (?:final )?(?:struct|enum|class|protocol|typealias|func|let|var|actor) ([A-Za-z_][A-Za-z0-9_]*)"#)
        var names: Set<String> = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let match = line.firstMatch(of: declaration), let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        let apple = try Regex(#"^(kSec|errSec|Sec|CF|kCF|LA|OSStatus$|noErr$)"#)
        let own = names.filter { $0.firstMatch(of: apple) == nil }
        #expect(!own.isEmpty)
        #expect(own.subtracting(appOwnNames).sorted() == [], "add these to Tests/SecurityNamesFixture (declare a type of each)")
    }
}
