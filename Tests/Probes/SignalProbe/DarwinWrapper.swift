// Linux only: on Darwin these names are Apple's own and would reach the real
// group containers and notify center (DarwinGuaranteeTests).
#if !canImport(Darwin)
import Foundation
import AppGroupFoundation // on iOS: nothing more than Foundation

// The shape of a widely copied Darwin notification wrapper, in this package's own
// words: an object registers itself with the Darwin center through an Unmanaged
// pointer and a callback that captures nothing, and forwards each notification to
// a closure by name. Only the import line differs from its iOS original.
final class DarwinNotificationObserver {
    private let handlers = NSLock()
    private var actions: [String: () -> Void] = [:]

    func startObserving(_ name: String, action: @escaping () -> Void) {
        handlers.lock()
        actions[name] = action
        handlers.unlock()
        let center = CFNotificationCenterGetDarwinNotifyCenter()
        let callback: CFNotificationCallback = { _, observer, name, _, _ in
            guard let observer, let name else { return }
            let me = Unmanaged<DarwinNotificationObserver>.fromOpaque(observer).takeUnretainedValue()
            me.received(name.rawValue as String)
        }
        CFNotificationCenterAddObserver(center, Unmanaged.passUnretained(self).toOpaque(), callback,
                                        name as CFString, nil, .deliverImmediately)
    }

    func stopObserving(_ name: String) {
        let center = CFNotificationCenterGetDarwinNotifyCenter()
        CFNotificationCenterRemoveObserver(center, Unmanaged.passUnretained(self).toOpaque(),
                                           CFNotificationName(name as CFString), nil)
    }

    static func post(_ name: String) {
        let center = CFNotificationCenterGetDarwinNotifyCenter()
        CFNotificationCenterPostNotification(center, CFNotificationName(name as CFString), nil, nil, true)
    }

    private func received(_ name: String) {
        handlers.lock()
        let action = actions[name]
        handlers.unlock()
        action?()
    }

    deinit {
        CFNotificationCenterRemoveEveryObserver(CFNotificationCenterGetDarwinNotifyCenter(), Unmanaged.passUnretained(self).toOpaque())
    }
}
#endif
