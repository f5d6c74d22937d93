import AppGroupContainer
import Foundation

/// WidgetKit's records on a simulated device, in `<root>/.device/widgetkit/`: the
/// device's, as on iOS they are chronod's, in a directory no sandboxed target may
/// reach (no rule of ``SandboxProfile`` covers `<root>/.device`). A target asks
/// the device over its channel (``DeviceChannel``, subjects below); only a process
/// without a channel, which is not sandboxed, reads and writes these files itself.
///
/// - `device.json`: the widget daemon's settings the test makes (foreground app,
///   daily budget, installed widgets; the device launches the executables it keeps
///   in the test process's memory). Written by the test process only. The clock is
///   not here: it is the device's (AppGroupContainer's `DeviceState`, read with
///   ``clockOffset()``); a `clockOffset` left in this file by an earlier version is
///   ignored.
/// - `requests/<nanoseconds>-<pid>-<n>.json`: a reload request of a process
///   without a channel, written atomically under a unique name, removed by the
///   device when it processes it. A target's requests come over its channel.
/// - `reloads.json`: what the device did with each request (written by the device only).
/// - `timelines/<kind as hex>.json`: the last timeline each widget kind produced,
///   written by the device from what the provider it launched sent.
package struct WidgetStore: Sendable {
    /// The signal posted after a request is recorded.
    package static let reloadSignal = "widgetkit.reload"
    /// A kind longer than this (UTF-8 bytes) is refused: it names a file.
    package static let kindLimit = 100
    /// The device's private directory under the root (outside every sandbox rule).
    package static let deviceDirectoryName = ".device"

    /// A target asks for a reload: payload ``ReloadAsk``; answered `ok` or refused.
    package static let reloadSubject = "widget.reload"
    /// A target asks for the installed widgets: answered with `[Configuration]` as JSON.
    package static let configurationsSubject = "widget.configurations"
    /// A widget's provider process hands the device its timeline: payload ``TimelineRecord``.
    package static let timelineSubject = "widget.timeline"
    /// The longest timeline a provider may hand the device, as its JSON (bytes):
    /// far beyond what a widget shows (a timeline of 500 entries of 400 bytes each
    /// fits), small enough that a flood costs the device little.
    package static let timelineLimit = 256 * 1024

    package let root: ContainerRoot
    package var directory: URL {
        URL(fileURLWithPath: root.path + "/" + Self.deviceDirectoryName + "/widgetkit", isDirectory: true)
    }

    package init(root: ContainerRoot) { self.root = root }

    /// The store of the device this process runs on (`APP_GROUP_CONTAINERS_ROOT`).
    package static func current() -> WidgetStore { WidgetStore(root: ContainerRoot(ContainerResolver.root())) }

    // MARK: Records

    package struct InstalledWidget: Codable, Sendable, Equatable {
        package var kind: String
        package var family: WidgetFamily
        package var bundleIdentifier: String
        /// What the test installed, for whoever inspects a kept device; the device
        /// launches the executable it keeps in memory, never this path.
        package var executable: String
        package init(kind: String, family: WidgetFamily, bundleIdentifier: String, executable: String) {
            self.kind = kind; self.family = family; self.bundleIdentifier = bundleIdentifier; self.executable = executable
        }
    }

    package struct Settings: Codable, Sendable {
        package var foregroundApp: String?
        package var dailyBudget: Int = 40
        package var widgets: [InstalledWidget] = []
        package init() {}
    }

    /// A reload request as the device handles it. The device sets `requester`
    /// (from the channel) and `date` (its clock) itself; only a process without a
    /// channel writes them, in its request file.
    package struct Request: Codable, Sendable {
        /// nil: all kinds (`reloadAllTimelines()`).
        package var kind: String?
        package var requester: String
        package var date: Date
        package init(kind: String?, requester: String, date: Date) {
            self.kind = kind; self.requester = requester; self.date = date
        }
    }

    /// What a target sends to ask for a reload: the kind only (nil: all kinds).
    package struct ReloadAsk: Codable, Sendable {
        package var kind: String?
        package init(kind: String?) { self.kind = kind }
    }

    /// One installed widget, as `getCurrentConfigurations` answers.
    package struct Configuration: Codable, Sendable {
        package var kind: String
        package var family: WidgetFamily
        package init(kind: String, family: WidgetFamily) { self.kind = kind; self.family = family }
    }

    /// A timeline as the device keeps it (dates on the device's clock). Sent by a
    /// provider's process with the dates on its own clock; the device moves them.
    package struct TimelineRecord: Codable, Sendable {
        package var kind: String
        package var family: WidgetFamily
        package var entryDates: [Date]
        package var entryDescriptions: [String]
        package var policy: String
        package var producedAt: Date
        /// When the policy asks for the next timeline, on the device's clock
        /// (`.atEnd`: the last entry's date; `.after(date)`: that date; nil for `.never`).
        package var reloadDate: Date?
        package init(kind: String, family: WidgetFamily, entryDates: [Date], entryDescriptions: [String],
                     policy: String, producedAt: Date, reloadDate: Date?) {
            (self.kind, self.family, self.entryDates, self.entryDescriptions) = (kind, family, entryDates, entryDescriptions)
            (self.policy, self.producedAt, self.reloadDate) = (policy, producedAt, reloadDate)
        }

        /// The same timeline with every date moved by `offset` seconds.
        package func moved(by offset: TimeInterval) -> TimelineRecord {
            TimelineRecord(kind: kind, family: family, entryDates: entryDates.map { $0.addingTimeInterval(offset) },
                           entryDescriptions: entryDescriptions, policy: policy,
                           producedAt: producedAt.addingTimeInterval(offset), reloadDate: reloadDate?.addingTimeInterval(offset))
        }
    }

    // MARK: The wire (one line of JSON each)

    /// `value` as one line of JSON (the encoder escapes every newline).
    package static func line<T: Encodable>(_ value: T) throws(WidgetStoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        do { return String(decoding: try encoder.encode(value), as: UTF8.self) } catch {
            throw .malformed(path: "(a request to the device)", problem: "\(error)")
        }
    }

    /// A value of the wire's, or nil when `text` is not one.
    package static func parse<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(type, from: Data(text.utf8))
    }

    // MARK: Reading and writing

    private func url(_ relative: String) -> URL { directory.appendingPathComponent(relative) }

    package func readSettings() throws(WidgetStoreError) -> Settings {
        guard let data = try files({ () throws(AppGroupError) in try AtomicFile.read(url("device.json"), below: root) }) else { return Settings() }
        return try decode(Settings.self, data, url("device.json"))
    }

    package func writeSettings(_ settings: Settings) throws(WidgetStoreError) {
        try write(settings, to: url("device.json"))
    }

    /// The device's state record, which holds its clock.
    package var deviceState: DeviceStateStore {
        DeviceStateStore(root: URL(fileURLWithPath: root.path, isDirectory: true),
                         name: DeviceStateStore.current().name)
    }

    /// Seconds the device's clock is ahead of the real one.
    package func clockOffset() throws(WidgetStoreError) -> TimeInterval {
        try files({ () throws(AppGroupError) in try deviceState.read().clockOffset })
    }

    /// The device's clock: the real clock plus the offset the test advanced it by.
    package func now() throws(WidgetStoreError) -> Date { Date().addingTimeInterval(try clockOffset()) }

    private static let counter = CounterBox()

    /// Records a request under a name no other process uses, then posts the signal.
    package func record(_ request: Request) throws(WidgetStoreError) {
        let nanos = UInt64(max(0, Date().timeIntervalSince1970) * 1_000_000_000)
        let name = String(format: "%020llu-%d-%d.json", nanos, getpid(), Self.counter.next())
        try write(request, to: url("requests/" + name))
        do { try SignalTable.forDevice(root: root).post(Self.reloadSignal) } catch { throw .files(error) }
    }

    /// Pending requests, oldest first, with their file names.
    package func pendingRequests() throws(WidgetStoreError) -> [(name: String, request: Request)] {
        var names: [String] = []
        do {
            try FileOperations.forEachEntry(in: url("requests").path) { name in
                if name.hasSuffix(".json"), !AtomicFile.isTemporaryName(name) { names.append(name) }
            }
        } catch let error as AppGroupError {
            throw .files(error)
        } catch {
            throw .malformed(path: url("requests").path, problem: "\(error)")
        }
        var found: [(String, Request)] = []
        for name in names.sorted() {
            guard let data = try files({ () throws(AppGroupError) in try AtomicFile.read(url("requests/" + name), below: root) }) else { continue }
            found.append((name, try decode(Request.self, data, url("requests/" + name))))
        }
        return found
    }

    package func removeRequest(named name: String) throws(WidgetStoreError) {
        _ = try files({ () throws(AppGroupError) in try AtomicFile.remove(url("requests/" + name), below: root) })
    }

    package func timelineURL(kind: String) -> URL {
        url("timelines/" + kind.utf8.map { String(format: "%02x", $0) }.joined() + ".json")
    }

    package func writeTimeline(_ record: TimelineRecord) throws(WidgetStoreError) {
        try write(record, to: timelineURL(kind: record.kind))
    }

    package func readTimeline(kind: String) throws(WidgetStoreError) -> TimelineRecord? {
        guard let data = try files({ () throws(AppGroupError) in try AtomicFile.read(timelineURL(kind: kind), below: root) }) else { return nil }
        return try decode(TimelineRecord.self, data, timelineURL(kind: kind))
    }

    package func readLog<T: Decodable>(_ type: T.Type) throws(WidgetStoreError) -> T? {
        guard let data = try files({ () throws(AppGroupError) in try AtomicFile.read(url("reloads.json"), below: root) }) else { return nil }
        return try decode(T.self, data, url("reloads.json"))
    }

    package func writeLog<T: Encodable>(_ value: T) throws(WidgetStoreError) { try write(value, to: url("reloads.json")) }

    /// Why `kind` cannot name a widget; nil when it can.
    package static func problem(kind: String) -> String? {
        if kind.isEmpty { return "the kind is empty" }
        if kind.utf8.count > kindLimit { return "the kind is \(kind.utf8.count) bytes long; the limit is \(kindLimit)" }
        if kind.utf8.contains(0) { return "the kind contains a NUL byte" }
        return nil
    }

    private func write<T: Encodable>(_ value: T, to target: URL) throws(WidgetStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data: Data
        do { data = try encoder.encode(value) } catch { throw .malformed(path: target.path, problem: "\(error)") }
        try files({ () throws(AppGroupError) in try DirectoryHandle.makeDirectories(target.deletingLastPathComponent()) })
        try files({ () throws(AppGroupError) in try AtomicFile.write(data, to: target, below: root, durable: false) })
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data, _ source: URL) throws(WidgetStoreError) -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do { return try decoder.decode(type, from: data) } catch {
            throw .malformed(path: source.path, problem: "it is not the JSON this package writes (\(error)); remove it")
        }
    }
}

/// Runs a file primitive of the package, reporting its error as this store's.
private func files<T>(_ body: () throws(AppGroupError) -> T) throws(WidgetStoreError) -> T {
    do { return try body() } catch { throw .files(error) }
}

private final class CounterBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}
