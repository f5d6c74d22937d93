#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// The host's request to an app extension, as Apple's `NSExtensionContext`: the
/// items it was given, and the one way the extension ends it (complete with items,
/// or cancel with an error).
///
/// Foundation's name on Apple's platforms, declared here because Linux's Foundation
/// lacks it (see ``NSItemProvider`` for why this module). On Linux a context exists
/// in an extension's process started by the simulated share sheet
/// (`SimulatedDevice.share(_:to:)`, in AppGroupTesting); the process receives it
/// through ``NSExtensionRequestHandling`` and the global ``extensionContext``
/// (<doc:ShareExtensionsOnLinux>).
open class NSExtensionContext: NSObject, @unchecked Sendable {
    // @unchecked: immutable but for `ended`, which a lock guards.

    /// How a request ended, as the host sees it.
    package enum Ending: Sendable {
        case completed([NSExtensionItem])
        case cancelled(NSError)
    }

    /// The items the host gave the extension (``NSExtensionItem``s, as `[Any]` as on iOS).
    open var inputItems: [Any] { items }
    let items: [NSExtensionItem]
    /// The extension point the request came through (`com.apple.share-services`).
    package let extensionPoint: String
    private let ended = Locked(false)
    private let reply: @Sendable (Ending, @escaping @Sendable () -> Void) -> Void
    private let opened: @Sendable (URL, Bool) -> Void

    /// A context for `items` through `extensionPoint`. `reply` receives the ending
    /// once, with what to run after the host has it; `opened` each `open` and its answer.
    package init(inputItems: [NSExtensionItem], extensionPoint: String,
                 reply: @escaping @Sendable (Ending, @escaping @Sendable () -> Void) -> Void,
                 opened: @escaping @Sendable (URL, Bool) -> Void = { _, _ in }) {
        items = inputItems
        self.extensionPoint = extensionPoint
        self.reply = reply
        self.opened = opened
        super.init()
    }

    /// Ends the request, handing the host `items` (``NSExtensionItem``s; other
    /// values are ignored), and then calls `completionHandler` with `expired` false,
    /// on the main queue (see ``open(_:completionHandler:)`` for why).
    /// Only the first of the calls that end a request counts: later ones are ignored.
    open func completeRequest(returningItems items: [Any]?, completionHandler: ((Bool) -> Void)? = nil) {
        let returned = (items ?? []).compactMap { $0 as? NSExtensionItem }
        let handler = NSItemProvider.Handoff(value: completionHandler)
        end(.completed(returned)) { handler.value?(false) }
    }

    /// Ends the request as cancelled with `error`, which the host receives.
    /// Only the first of the calls that end a request counts.
    open func cancelRequest(withError error: any Error) {
        end(.cancelled(error as NSError)) {}
    }

    /// Asks the system to open `URL` in an app. As on iOS, each extension point
    /// decides: Apple lists the Today and iMessage extension points as supporting it
    /// (`com.apple.widget-extension`, `com.apple.message-payload-provider`), and a
    /// share extension is not one of them, so there `completionHandler` gets false
    /// and nothing opens. The answer comes on the main queue.
    open func open(_ URL: URL, completionHandler: ((Bool) -> Void)? = nil) {
        let supported = Self.pointsThatOpenURLs.contains(extensionPoint)
        opened(URL, supported)
        let handler = NSItemProvider.Handoff(value: completionHandler)
        // On the main queue: a handler written in a main-actor class (a view
        // controller on iOS, an NSExtensionRequestHandling here) is main-actor isolated,
        // and Swift stops a process that calls one from another thread.
        DispatchQueue.main.async { handler.value?(supported) }
    }

    /// The extension points whose extensions may open URLs (Apple's documentation
    /// of `open(_:completionHandler:)`: the Today and iMessage extension points).
    package static let pointsThatOpenURLs: Set<String> = ["com.apple.widget-extension", "com.apple.message-payload-provider"]

    private func end(_ ending: Ending, then: @escaping @Sendable () -> Void) {
        let first = ended.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else {
            Diagnostics.warn("NSExtensionContext: the request has already ended; this completeRequest or cancelRequest is ignored")
            return
        }
        reply(ending, then)
    }
}

/// Apple's protocol for an extension's principal object that receives its request
/// directly, `beginRequest(with:)`: the entry point of an extension on Linux, where
/// there is no UIKit view controller to be given an `extensionContext`
/// (<doc:ShareExtensionsOnLinux>). Main-actor isolated, as the `UIViewController` it
/// stands in for is, so that a principal class captures `self` in the providers'
/// `@Sendable` completion handlers as iOS code does.
@MainActor
public protocol NSExtensionRequestHandling: AnyObject {
    /// Called once, on the main thread, with the request the extension is to handle.
    func beginRequest(with context: NSExtensionContext)
}
#endif

#if !canImport(Darwin)
/// The request of this extension process, as `extensionContext` answers in an iOS
/// extension's view controller: set by `ExtensionMain.run(_:)` (AppGroupSimulation) before the
/// principal object's `beginRequest(with:)`; nil in a process the share sheet did
/// not start. A global on Linux, where there is no view controller to carry it, so
/// that code written in one (`extensionContext?.completeRequest(returningItems: [],
/// completionHandler: nil)`) compiles unchanged in the principal class.
public var extensionContext: NSExtensionContext? { NSExtensionContext.current.withLock { $0 } }

extension NSExtensionContext {
    /// The request of this process, set by the entry point of an extension's
    /// executable (AppGroupSimulation's `ExtensionMain`), which answers it.
    package static let current = Locked<NSExtensionContext?>(nil)
}

extension NSExtensionRequestHandling {
    /// The request of this extension process (the global ``extensionContext``), as a
    /// member, so that `self.extensionContext` in a closure reads as in a
    /// `UIViewController` on iOS, where the system sets it.
    public var extensionContext: NSExtensionContext? { NSExtensionContext.current.withLock { $0 } }
}
#endif
