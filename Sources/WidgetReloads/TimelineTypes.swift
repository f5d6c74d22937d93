import Foundation

// WidgetKit's timeline types with Apple's names and signatures (the reload side
// only: a widget's SwiftUI views stay on Apple's platforms). `import WidgetKit`
// re-exports exactly these on Linux.

/// The size classes of a widget, as Apple's.
public enum WidgetFamily: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case systemSmall, systemMedium, systemLarge, systemExtraLarge
    case accessoryCorner, accessoryCircular, accessoryRectangular, accessoryInline

    public var description: String {
        switch self {
        case .systemSmall: "systemSmall"
        case .systemMedium: "systemMedium"
        case .systemLarge: "systemLarge"
        case .systemExtraLarge: "systemExtraLarge"
        case .accessoryCorner: "accessoryCorner"
        case .accessoryCircular: "accessoryCircular"
        case .accessoryRectangular: "accessoryRectangular"
        case .accessoryInline: "accessoryInline"
        }
    }

    /// The display size of this family on the simulated device (an iPhone 15's
    /// points, as Apple's Human Interface Guidelines list them).
    var displaySize: CGSize {
        switch self {
        case .systemSmall: CGSize(width: 170, height: 170)
        case .systemMedium: CGSize(width: 364, height: 170)
        case .systemLarge: CGSize(width: 364, height: 382)
        case .systemExtraLarge: CGSize(width: 715, height: 330)
        case .accessoryCorner, .accessoryCircular: CGSize(width: 76, height: 76)
        case .accessoryRectangular: CGSize(width: 172, height: 76)
        case .accessoryInline: CGSize(width: 257, height: 26)
        }
    }
}

/// A date at which WidgetKit shows a widget's view, as Apple's protocol.
public protocol TimelineEntry {
    /// When the entry is shown.
    var date: Date { get }
}

/// When WidgetKit asks a provider for its next timeline, as Apple's.
public struct TimelineReloadPolicy: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable { case atEnd, after(Date), never }
    let kind: Kind

    /// After the last entry's date.
    public static let atEnd = TimelineReloadPolicy(kind: .atEnd)
    /// Never, until the app asks with `WidgetCenter`.
    public static let never = TimelineReloadPolicy(kind: .never)
    /// After `date`.
    public static func after(_ date: Date) -> TimelineReloadPolicy { TimelineReloadPolicy(kind: .after(date)) }

    public var description: String {
        switch kind {
        case .atEnd: "atEnd"
        case .never: "never"
        case .after(let date): "after(\(date.timeIntervalSince1970))"
        }
    }
}

/// The entries a provider gives WidgetKit and when to ask again, as Apple's.
public struct Timeline<EntryType: TimelineEntry> {
    /// The entries, in the order they are shown.
    public let entries: [EntryType]
    /// When to ask for the next timeline.
    public let policy: TimelineReloadPolicy

    /// A timeline of `entries` reloaded as `policy` says.
    public init(entries: [EntryType], policy: TimelineReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }
}

/// What the provider is asked for, as Apple's.
public struct TimelineProviderContext: Sendable {
    /// The widget's family.
    public let family: WidgetFamily
    /// The widget's size in points.
    public let displaySize: CGSize
    /// True when WidgetKit shows the widget in the gallery. Always false here.
    public let isPreview: Bool

    init(family: WidgetFamily, isPreview: Bool = false) {
        self.family = family
        self.displaySize = family.displaySize
        self.isPreview = isPreview
    }
}

/// A widget's source of timelines, as Apple's protocol (without the SwiftUI side).
public protocol TimelineProvider {
    /// The provider's entry type.
    associatedtype Entry: TimelineEntry
    /// A placeholder entry, shown while the widget loads.
    func placeholder(in context: Self.Context) -> Self.Entry
    /// One entry for a transient display.
    func getSnapshot(in context: Self.Context, completion: @escaping @Sendable (Self.Entry) -> Void)
    /// The timeline: where the shared data is read.
    func getTimeline(in context: Self.Context, completion: @escaping @Sendable (Timeline<Self.Entry>) -> Void)
    /// Apple's name for the context type.
    typealias Context = TimelineProviderContext
}

/// A widget configured on the device, as Apple's (kind and family).
public struct WidgetInfo: Sendable, CustomStringConvertible {
    /// The widget's kind string.
    public let kind: String
    /// Its family.
    public let family: WidgetFamily

    public var description: String { "WidgetInfo(kind: \(kind), family: \(family))" }
}
