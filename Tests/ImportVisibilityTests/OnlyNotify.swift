// notify(3) with `import notify` alone, as on iOS (the package's module of that
// name on Linux), and the share extension's entry point with `import
// AppGroupSimulation` alone, under MemberImportVisibility.
import AppGroupSimulation
import notify
import Testing

@Suite("Import visibility: notify and AppGroupSimulation alone")
struct OnlyNotify {
    @Test("notify(3)'s functions and status codes are reachable and refuse a bad token")
    func notifyFunctions() {
        var check: Int32 = 0
        #expect(notify_check(-1, &check) == UInt32(NOTIFY_STATUS_INVALID_TOKEN))
        #expect(notify_cancel(-1) == UInt32(NOTIFY_STATUS_INVALID_TOKEN))
    }

    @Test("ExtensionMain is reachable, and says no request started this process")
    func extensionMain() {
        #expect(ExtensionMain.hasRequest == false)
    }
}
