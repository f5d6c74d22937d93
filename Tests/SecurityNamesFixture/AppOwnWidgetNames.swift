// Types an app may well have, named like the package's own WidgetKit API
// (WidgetReloads and the simulated device's records): WidgetKitNamesTests imports
// this module beside WidgetKit, which must expose Apple's names only.
public enum WidgetHost: Sendable { case main }
public struct WidgetStore: Sendable { public var notes = ["a"]; public init() {} }
public struct WidgetStoreError: Error, Sendable { public init() {} }
public struct WidgetTimeline: Sendable { public var day = 1; public init() {} }
public struct WidgetReload: Sendable { public var pending = true; public init() {} }
