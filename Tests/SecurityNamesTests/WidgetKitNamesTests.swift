// Compiles as an app's module that imports WidgetKit beside its own types named
// like the package's WidgetKit API: were `import WidgetKit` to expose more than
// Apple's names, the uses below would be ambiguous and this target would not compile.
import Foundation
import SecurityNamesFixture
import Testing
import WidgetKit

struct DayEntry: TimelineEntry { let date: Date }

struct DayProvider: TimelineProvider {
    func placeholder(in context: Context) -> DayEntry { DayEntry(date: .distantPast) }
    func getSnapshot(in context: Context, completion: @escaping @Sendable (DayEntry) -> Void) { completion(DayEntry(date: Date())) }
    func getTimeline(in context: Context, completion: @escaping @Sendable (Timeline<DayEntry>) -> Void) {
        completion(Timeline(entries: [DayEntry(date: Date())], policy: .after(Date().addingTimeInterval(3_600))))
    }
}

@Suite struct WidgetKitNamesTests {
    @Test func anAppsOwnTypesKeepTheirNamesBesideWidgetKit() {
        let host = WidgetHost.main
        let store = WidgetStore()
        let error: Error = WidgetStoreError()
        let timeline = WidgetTimeline()
        let reload = WidgetReload()
        #expect(host == .main && store.notes == ["a"] && error is WidgetStoreError && timeline.day == 1 && reload.pending)
    }

    @Test func applesNamesStillWork() {
        let policies: [TimelineReloadPolicy] = [.atEnd, .never, .after(Date(timeIntervalSince1970: 0))]
        #expect(policies.map(\.description) == ["atEnd", "never", "after(0.0)"])
        #expect(WidgetFamily.allCases.contains(.systemMedium))
        let center: WidgetCenter = WidgetCenter.shared
        let provider: any TimelineProvider = DayProvider()
        _ = (center, provider)
    }
}
