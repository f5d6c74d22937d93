// Compiles as an app's module that imports AppGroupFoundation and notify beside its
// own types named like AppGroupContainer's API (Entitlements, Diagnostics,
// AppGroupError, GroupIdentifier, ContainerResolver): were either module to expose
// more than Apple's names, the uses below would be ambiguous and this target would
// not compile.
import AppGroupFoundation
import notify
import SecurityNamesFixture
import Testing

@Suite struct AppGroupFoundationNamesTests {
    @Test func anAppsOwnTypesKeepTheirNamesBesideAppGroupFoundationAndNotify() {
        let entitlements = Entitlements()
        let line = Diagnostics.log("hello")
        let groupError: Error = AppGroupError.missing
        let group = GroupIdentifier()
        let resolver = ContainerResolver()
        #expect(entitlements.groups.isEmpty && line == "hello" && groupError is AppGroupError && group.value == "group.x")
        _ = resolver
    }

    @Test func applesNamesStillWork() {
        #expect(CFNotificationName("a" as CFString).rawValue == "a")
        #expect(NSFileCoordinator.ReadingOptions.withoutChanges.rawValue == 1)
        var check: Int32 = 0
        #expect(notify_check(-1, &check) == UInt32(NOTIFY_STATUS_INVALID_TOKEN))
    }

    // That their sources declare Apple's names only: FrameworkNamesTests.
}
