// Linux only: on Darwin these names are Apple's own and would reach the real
// group containers and notify center (DarwinGuaranteeTests).
#if !canImport(Darwin)
import Foundation
import AppGroupFoundation // on iOS: nothing more than Foundation

// The shape of a capture store shared by an app and its share extension, in this
// package's own words: the extension saves a capture to the group container and
// then posts a Darwin notification; the running app, woken by it, reloads. Only
// the import line differs from its iOS original.
struct CaptureStore {
    static let didSave = "com.example.captures.didSave"
    let directory: URL

    init?(group: String) {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else { return nil }
        directory = container.appendingPathComponent("Captures", isDirectory: true)
    }

    func save(_ text: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(UUID().uuidString + ".txt")
        try Data(text.utf8).write(to: file, options: .atomic)
        let center = CFNotificationCenterGetDarwinNotifyCenter()
        CFNotificationCenterPostNotification(center, CFNotificationName(Self.didSave as CFString), nil, nil, true)
    }

    func all() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return files.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.sorted()
    }

    /// The app side: reloads on each notice, on the main queue.
    final class Watcher {
        let store: CaptureStore
        let reloaded: ([String]) -> Void

        init(store: CaptureStore, reloaded: @escaping ([String]) -> Void) {
            self.store = store
            self.reloaded = reloaded
            let callback: CFNotificationCallback = { _, observer, _, _, _ in
                guard let observer else { return }
                let watcher = Unmanaged<Watcher>.fromOpaque(observer).takeUnretainedValue()
                watcher.reloaded(watcher.store.all())
            }
            CFNotificationCenterAddObserver(CFNotificationCenterGetDarwinNotifyCenter(), Unmanaged.passUnretained(self).toOpaque(),
                                            callback, CaptureStore.didSave as CFString, nil, .deliverImmediately)
        }
    }
}
#endif
