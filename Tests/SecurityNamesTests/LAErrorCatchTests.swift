// iOS code's ways of catching LocalAuthentication's errors, with the one import
// such code has: each must compile and match as on iOS.
import LocalAuthentication
import Testing

@Suite struct LAErrorCatchTests {
    static func cancelled() throws { throw LAError(.userCancel) }

    @Test func catchingByCodePattern() {
        var matched = ""
        do {
            try Self.cancelled()
        } catch LAError.userFallback {
            matched = "fallback"
        } catch LAError.userCancel {
            matched = "cancel"
        } catch {
            matched = "other"
        }
        #expect(matched == "cancel")
    }

    @Test func catchingAsLAErrorAndSwitchingOnTheCode() {
        do {
            try Self.cancelled()
        } catch let error as LAError {
            switch error.code {
            case .userCancel: #expect(error.errorCode == -2)
            default: Issue.record("matched \(error.code)")
            }
        } catch {
            Issue.record("not an LAError: \(error)")
        }
    }
}
