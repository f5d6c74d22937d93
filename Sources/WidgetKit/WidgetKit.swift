// The module `import WidgetKit` resolves to on Linux, where Apple's WidgetKit does
// not exist (Package.swift declares it on Linux only). It exposes Apple's names
// only, each re-exported from WidgetReloads, whose own API (WidgetHost, the
// device's records) stays under `import WidgetReloads`. The reload side only: a
// widget's SwiftUI views (Widget, WidgetConfiguration, StaticConfiguration) stay
// on Apple's platforms.
@_exported import Foundation
@_exported import protocol WidgetReloads.TimelineEntry
@_exported import protocol WidgetReloads.TimelineProvider
@_exported import struct WidgetReloads.Timeline
@_exported import struct WidgetReloads.TimelineProviderContext
@_exported import struct WidgetReloads.TimelineReloadPolicy
@_exported import class WidgetReloads.WidgetCenter
@_exported import enum WidgetReloads.WidgetFamily
@_exported import struct WidgetReloads.WidgetInfo
