#if !canImport(Darwin)
import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import Security
import LocalAuthentication

/// Part 4 of issue 13: the keychain's answers for protected items, against the scripted sensor.
@Suite(.dedicatedThreads) struct ProtectedItemTests {
    @Test func aReadConsumesOnePromptPerCallWithApplesStatusCodes() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", .biometryAny, value: "s1") == errSecSuccess)
        try box.device.scriptBiometry([.cancel, .noMatch, .systemCancel, .match])
        #expect(Protected.read(app, "alice").status == errSecUserCanceled)
        #expect(Protected.read(app, "alice").status == errSecAuthFailed)
        #expect(Protected.read(app, "alice").status == errSecUserCanceled)
        let read = Protected.read(app, "alice")
        #expect(read.status == errSecSuccess && read.value == "s1")
        let sensor = try box.device.biometry()
        #expect(sensor.presentedPrompts.map(\.outcome) == [.cancel, .noMatch, .systemCancel, .match])
        #expect(sensor.scriptedOutcomes.isEmpty)
        // A match resets the failure count.
        #expect(sensor.failedMatches == 0)
    }

    @Test func anUnscriptedPromptIsASystemCancelNotAWait() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", .biometryAny) == errSecSuccess)
        #expect(Protected.read(app, "alice").status == errSecUserCanceled)
        #expect(try box.device.biometry().presentedPrompts.last?.outcome == nil)
        // The typed layer says what happened and what to do.
        do {
            _ = try app.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: true])
            Issue.record("an unscripted prompt succeeded")
        } catch let error as SharedKeychain.KeychainError {
            #expect(error.status == errSecUserCanceled)
            #expect(error.description.contains("the system canceled the prompt") && error.description.contains("alice"))
            #expect(!error.description.contains("secret"))
        }
    }

    @Test func attributeOnlySearchesExistenceChecksAndDeletesDoNotPrompt() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", .biometryCurrentSet) == errSecSuccess)
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice"]
        #expect(asProcess(app) { SecItemCopyMatching(query as CFDictionary, nil) } == errSecSuccess)
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        var found: CFTypeRef?
        #expect(asProcess(app) { SecItemCopyMatching(query as CFDictionary, &found) } == errSecSuccess)
        #expect((found as? [[String: Any]])?.count == 1)
        // A delete needs no authentication either.
        query = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice"]
        #expect(asProcess(app) { SecItemDelete(query as CFDictionary) } == errSecSuccess)
        #expect(try box.device.itemCount() == 0)
        #expect(try Protected.prompts(box.device) == 0)
    }

    @Test func noInteractionAnswersInteractionNotAllowedWithoutPrompting() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", .userPresence) == errSecSuccess)
        try box.device.scriptBiometry([.match])
        #expect(Protected.read(app, "alice", [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]).status == errSecInteractionNotAllowed)
        let context = LAContext(simulatedDevice: box.device)
        context.interactionNotAllowed = true
        #expect(Protected.read(app, "alice", [kSecUseAuthenticationContext as String: context]).status == errSecInteractionNotAllowed)
        #expect(try Protected.prompts(box.device) == 0)
        // Skip leaves the protected item out: nothing else matches.
        #expect(Protected.read(app, "alice", [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]).status == errSecItemNotFound)
        #expect(try box.device.biometry().scriptedOutcomes == [.match])
    }

    @Test func anEvaluatedContextIsReusedWithoutASecondPromptUntilInvalidated() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", .biometryCurrentSet, value: "a") == errSecSuccess)
        #expect(Protected.add(app, "bob", .biometryAny, value: "b") == errSecSuccess)
        try box.device.scriptBiometry([.match])
        let context = LAContext(simulatedDevice: box.device)
        context.localizedReason = "Unlock your vault"
        let use: [String: Any] = [kSecUseAuthenticationContext as String: context]
        #expect(Protected.read(app, "alice", use).value == "a")
        #expect(Protected.read(app, "bob", use).value == "b")
        #expect(Protected.read(app, "alice", use).value == "a")
        let prompts = try box.device.biometry().presentedPrompts
        #expect(prompts.count == 1)
        #expect(prompts.first?.reason == "Unlock your vault")
        #expect(context.evaluatedPolicyDomainState == (try box.device.biometry().domainState))
        context.invalidate()
        #expect(Protected.read(app, "alice", use).status == errSecAuthFailed)
        #expect(try Protected.prompts(box.device) == 1)
    }

    @Test func reEnrolmentInvalidatesCurrentSetItemsButNotAnyItems() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "current", .biometryCurrentSet) == errSecSuccess)
        #expect(Protected.add(app, "any", .biometryAny, value: "still") == errSecSuccess)
        #expect(Protected.add(app, "either", [.biometryCurrentSet, .or, .devicePasscode], value: "code") == errSecSuccess)
        try box.device.enrollBiometry()
        try box.device.scriptBiometry([.match, .match])
        #expect(Protected.read(app, "current").status == errSecItemNotFound)
        #expect(try Protected.prompts(box.device) == 0)
        #expect(Protected.read(app, "any").value == "still")
        // The current-set half is gone; the passcode half still opens it, with no scan shown.
        #expect(Protected.read(app, "either").value == "code")
        #expect(try box.device.biometry().presentedPrompts.map(\.kind) == [.biometry, .passcode])
        // The invalidated item still occupies its primary key: delete and add again.
        #expect(Protected.add(app, "current", .biometryCurrentSet) == errSecDuplicateItem)
        let delete: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "current"]
        #expect(asProcess(app) { SecItemDelete(delete as CFDictionary) } == errSecSuccess)
        #expect(Protected.add(app, "current", .biometryCurrentSet, value: "new") == errSecSuccess)
        try box.device.scriptBiometry([.match])
        #expect(Protected.read(app, "current").value == "new")
    }

    @Test func addingABiometryItemWithoutEnrolmentFails() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try box.device.removeBiometryEnrollment()
        #expect(Protected.add(app, "a", .biometryCurrentSet) == errSecAuthFailed)
        #expect(Protected.add(app, "b", .biometryAny) == errSecAuthFailed)
        // Passcode-capable constraints need no biometry.
        #expect(Protected.add(app, "c", .userPresence) == errSecSuccess)
        #expect(Protected.add(app, "d", .devicePasscode) == errSecSuccess)
        try box.device.setBiometryKind(.none)
        #expect(Protected.add(app, "e", .biometryAny) == errSecAuthFailed)
        #expect(try box.device.itemCount() == 2)
        // Without a passcode nothing can be protected by it either.
        try box.device.setPasscode(false)
        #expect(Protected.add(app, "f", .devicePasscode) == errSecAuthFailed)
    }

    @Test func passcodeConstraintsFallBackToThePasscode() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "presence", .userPresence, value: "p") == errSecSuccess)
        #expect(Protected.add(app, "code", .devicePasscode, value: "c") == errSecSuccess)
        // .devicePasscode asks for the passcode straight away.
        try box.device.scriptBiometry([.match])
        #expect(Protected.read(app, "code").value == "c")
        #expect(try box.device.biometry().presentedPrompts.last?.kind == .passcode)
        // .userPresence: the fallback button leads to the passcode.
        try box.device.scriptBiometry([.fallback, .match])
        #expect(Protected.read(app, "presence").value == "p")
        #expect(try box.device.biometry().presentedPrompts.suffix(2).map(\.kind) == [.biometry, .passcode])
        // A biometry-only item has no passcode behind its fallback button: -128.
        #expect(Protected.add(app, "face", .biometryAny) == errSecSuccess)
        try box.device.scriptBiometry([.fallback])
        #expect(Protected.read(app, "face").status == errSecUserCanceled)
        // .userPresence without enrolment: the passcode.
        try box.device.removeBiometryEnrollment()
        try box.device.scriptBiometry([.match])
        #expect(Protected.read(app, "presence").value == "p")
        #expect(try box.device.biometry().presentedPrompts.last?.kind == .passcode)
        // A wrong passcode is errSecAuthFailed.
        try box.device.scriptBiometry([.noMatch])
        #expect(Protected.read(app, "presence").status == errSecAuthFailed)
        #expect(try box.device.biometry().presentedPrompts.last?.kind == .passcode)
        // .and asks for both: a scan, then the passcode (enrolled again first).
        try box.device.enrollBiometry()
        #expect(Protected.add(app, "both", [.biometryAny, .and, .devicePasscode], value: "b") == errSecSuccess)
        try box.device.scriptBiometry([.match, .match])
        #expect(Protected.read(app, "both").value == "b")
        #expect(try box.device.biometry().presentedPrompts.suffix(2).map(\.kind) == [.biometry, .passcode])
        try box.device.scriptBiometry([.match, .cancel])
        #expect(Protected.read(app, "both").status == errSecUserCanceled)
    }

    @Test func fiveFailedMatchesLockBiometryOutUntilThePasscode() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "face", .biometryAny, value: "f") == errSecSuccess)
        #expect(Protected.add(app, "presence", .userPresence, value: "p") == errSecSuccess)
        try box.device.scriptBiometry(Array(repeating: .noMatch, count: 5))
        for _ in 0..<5 { #expect(Protected.read(app, "face").status == errSecAuthFailed) }
        #expect(try box.device.biometry().isLockedOut)
        // Locked out: a biometry-only item fails at once, no prompt.
        try box.device.scriptBiometry([.match])
        #expect(Protected.read(app, "face").status == errSecAuthFailed)
        #expect(try Protected.prompts(box.device) == 5)
        // .userPresence goes to the passcode; entering it ends the lockout.
        #expect(Protected.read(app, "presence").value == "p")
        #expect(try box.device.biometry().presentedPrompts.last?.kind == .passcode)
        #expect(try !box.device.biometry().isLockedOut)
        try box.device.scriptBiometry([.match])
        #expect(Protected.read(app, "face").value == "f")
    }

    @Test func anUpdatePromptsAndTheProtectionClassStillApplies() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", .biometryAny, value: "old") == errSecSuccess)
        let identity: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice"]
        let change: [String: Any] = [kSecValueData as String: Data("new".utf8)]
        try box.device.scriptBiometry([.cancel, .match, .match])
        #expect(asProcess(app) { SecItemUpdate(identity as CFDictionary, change as CFDictionary) } == errSecUserCanceled)
        #expect(asProcess(app) { SecItemUpdate(identity as CFDictionary, change as CFDictionary) } == errSecSuccess)
        #expect(Protected.read(app, "alice").value == "new")
        // WhenUnlockedThisDeviceOnly: a locked device refuses before any prompt.
        try box.device.lock()
        #expect(Protected.read(app, "alice").status == errSecInteractionNotAllowed)
        #expect(try Protected.prompts(box.device) == 3)
    }
}
#endif
