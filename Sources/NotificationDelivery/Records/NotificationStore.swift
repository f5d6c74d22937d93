import AppGroupContainer
import Foundation

/// The notification centers of a simulated device's apps, in
/// `<root>/.device/usernotifications/<app as hex>.json`: the device's, as on iOS
/// they are usernotificationsd's, in a directory no sandboxed target may reach (no
/// rule of the sandbox covers `<root>/.device`). Written by the test process
/// only: a target's calls come over its channel and the device, knowing the
/// target by the channel, runs them on its app's file. An app and its extensions
/// share the app's center.
package struct NotificationStore: Sendable {
    package let root: ContainerRoot
    package init(root: ContainerRoot) { self.root = root }

    /// The subject a target's calls come under.
    package static let subject = CenterAsk.subject

    /// One lock for every device of this process: the calls of several targets
    /// come on several threads, and each reads, changes and writes a file.
    private static let lock = NSLock()

    package var directory: URL {
        URL(fileURLWithPath: root.path + "/.device/usernotifications", isDirectory: true)
    }

    private func url(app: String) -> URL {
        directory.appendingPathComponent(app.utf8.map { String(format: "%02x", $0) }.joined() + ".json")
    }

    /// The answer (one line of JSON) to a call `payload` made by a target of `app`.
    /// - Throws: ``NotificationStoreError/requestRefused(from:problem:)`` for a
    ///   payload that is not a call as this package sends it, or too large.
    package func answer(_ payload: String, app: String, from asker: String) throws(NotificationStoreError) -> String {
        guard payload.utf8.count <= CenterRecords.requestLimit * 4,
              let ask = try? JSONDecoder().decode(CenterAsk.self, from: Data(payload.utf8)) else {
            throw .requestRefused(from: asker, problem: "its payload is not a call of UNUserNotificationCenter as this package sends it")
        }
        if let problem = ask.problem { throw .requestRefused(from: asker, problem: problem) }
        let answer = try update(app: app) { $0.perform(ask, now: Date()) }
        do { return String(decoding: try JSONEncoder().encode(answer), as: UTF8.self) } catch {
            throw .malformed(path: url(app: app).path, problem: "its answer could not be encoded: \(error)")
        }
    }

    /// Sets `app`'s authorization, as the person would in Settings.
    package func setAuthorization(_ status: UNAuthorizationStatus, options: UNAuthorizationOptions, app: String) throws(NotificationStoreError) {
        try update(app: app) { records in
            records.status = status
            records.options = options.rawValue
        }
    }

    /// `app`'s delivered notifications, oldest first.
    package func delivered(app: String) throws(NotificationStoreError) -> [UNNotification] {
        try update(app: app) { records in
            records.fire(now: Date())
            return records.delivered.map(\.notification)
        }
    }

    /// `app`'s pending requests, soonest first.
    package func pending(app: String) throws(NotificationStoreError) -> [UNNotificationRequest] {
        try update(app: app) { records in
            records.fire(now: Date())
            return records.pending.map(\.request.request)
        }
    }

    /// The number on `app`'s icon.
    package func badge(app: String) throws(NotificationStoreError) -> Int {
        try update(app: app) { $0.badge }
    }

    /// Delivers `request` for `app` (a push: the device's own delivery), unless the
    /// app may not notify; returns whether it was delivered.
    package func deliver(_ request: UNNotificationRequest, app: String) throws(NotificationStoreError) -> Bool {
        let stored: StoredRequest
        do { stored = try StoredRequest(request) } catch {
            throw .malformed(path: "(a pushed request)", problem: "\(error)")
        }
        return try update(app: app) { records in
            guard records.status.allowsDelivery else { return false }
            records.deliver(stored, at: Date())
            return true
        }
    }

    private func update<T>(app: String, _ body: (inout CenterRecords) -> T) throws(NotificationStoreError) -> T {
        Self.lock.lock()
        defer { Self.lock.unlock() }
        let file = url(app: app)
        var records = CenterRecords()
        do {
            if let data = try AtomicFile.read(file, below: root) {
                do { records = try JSONDecoder().decode(CenterRecords.self, from: data) } catch {
                    throw NotificationStoreError.malformed(path: file.path, problem: "it is not the JSON this package writes (\(error)); remove it")
                }
            }
        } catch let error as NotificationStoreError {
            throw error
        } catch let error as AppGroupError {
            throw .files(error)
        } catch {
            throw .malformed(path: file.path, problem: "\(error)")
        }
        let before = records
        let result = body(&records)
        guard records != before else { return result }
        let data: Data
        do { data = try JSONEncoder().encode(records) } catch { throw .malformed(path: file.path, problem: "\(error)") }
        do {
            try DirectoryHandle.makeDirectories(directory)
            try AtomicFile.write(data, to: file, below: root, durable: false)
        } catch {
            throw .files(error)
        }
        return result
    }
}
