#if !canImport(Darwin)
import AppGroupContainer
import AppGroupFoundation
import Foundation

/// The entry point of an app extension's executable on Linux: iOS starts an
/// extension at `NSExtensionMain`, which makes the principal class named in its
/// Info.plist and hands it the request; Linux has no such runtime lookup, so the
/// executable names its principal object in one line of `main.swift`:
///
/// ```swift
/// import AppGroupSimulation
///
/// ExtensionMain.run(ShareViewController())
/// ```
///
/// where `ShareViewController` adopts Apple's `NSExtensionRequestHandling`
/// instead of subclassing `UIViewController` (AppGroupFoundation's
/// ShareExtensionsOnLinux article).
///
/// Why here: it is the package's own name, not Apple's, so it cannot be in
/// AppGroupFoundation (Apple's names only), and it names Apple's protocol, which
/// AppGroupContainer, below AppGroupFoundation, cannot see. It is the target's half
/// of the simulated share sheet whose host's half is ``SimulatedDevice/share(_:to:built:arguments:environment:timeout:)``:
/// both read and write the one request directory (`ExtensionWire`), and an
/// extension's executable links this module (the `AppGroupSimulation` product,
/// which links no test framework) as a widget's host links WidgetReloads.
public enum ExtensionMain {
    /// Whether the simulated share sheet started this process with a request (an
    /// executable with other roles too checks this before `run(_:)`).
    public static var hasRequest: Bool { ProcessInfo.processInfo.environment[ExtensionWire.environmentKey] != nil }

    /// Reads the request the share sheet started this process with, makes its
    /// `NSExtensionContext` (also the global `extensionContext`), calls
    /// `principal.beginRequest(with:)` on the main thread and runs the main queue
    /// until the extension completes or cancels the request; the process then exits 0
    /// (after `completeRequest`'s completion handler), as iOS ends an extension whose
    /// request is over. A request left open is ended by the share sheet's deadline,
    /// and the process exits 1 a little after it if it is still running. Without a
    /// request (not started by the share sheet) it exits 64 with a message.
    /// Call it from the main thread (top-level code of `main.swift`), in Swift 6 or
    /// Swift 5 language mode: in Swift 5 mode top-level code is not main-actor
    /// isolated, so `principal` is made here, on the main actor, not by the caller.
    /// Called from another thread, it exits 70 with a message.
    public static func run<Principal: NSExtensionRequestHandling>(_ principal: @autoclosure @MainActor () -> Principal) -> Never {
        guard Thread.isMainThread else {
            fail(70, "ExtensionMain.run was called off the main thread; call it from the top-level code of main.swift")
        }
        MainActor.assumeIsolated { start(principal()) }
    }

    @MainActor
    static func start(_ principal: some NSExtensionRequestHandling) -> Never {
        guard let directoryPath = ProcessInfo.processInfo.environment[ExtensionWire.environmentKey] else {
            fail(64, "this process was not started with an extension request (\(ExtensionWire.environmentKey) is not set); start it with SimulatedDevice.share(_:to:) as the share sheet does")
        }
        let directory = URL(fileURLWithPath: directoryPath, isDirectory: true)
        let request: ExtensionWire.Request
        do {
            request = try ExtensionWire.read(ExtensionWire.Request.self, from: directory.appendingPathComponent(ExtensionWire.requestName))
        } catch {
            fail(65, "the extension request in \(directoryPath) cannot be read: \(error)")
        }
        let context = NSExtensionContext(inputItems: ExtensionWire.decode(request.items), extensionPoint: request.extensionPoint,
                                         reply: { ending, then in answer(ending, in: directory, then: then) })
        NSExtensionContext.current.withLock { $0 = context }
        // The share sheet kills a request that outlives its deadline; this is the
        // process's own bound, in case the host is gone.
        let margin = 10.0
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, min(request.timeout, 365 * 86_400)) + margin) {
            fail(1, "the extension request was neither completed nor cancelled within \(Int(request.timeout)) s (call completeRequest(returningItems:completionHandler:) or cancelRequest(withError:))")
        }
        principal.beginRequest(with: context)
        dispatchMain()
    }

    /// Writes the reply for the host, runs `then` and ends the process.
    static func answer(_ ending: NSExtensionContext.Ending, in directory: URL, then: @escaping @Sendable () -> Void) {
        do {
            var reply: ExtensionWire.Reply
            switch ending {
            case .completed(let items):
                let output = directory.appendingPathComponent("Output", isDirectory: true)
                // Named relative to Output: the device copies them out from there.
                reply = ExtensionWire.Reply(ending: "completed", items: try ExtensionWire.encode(items, copyingFilesInto: output, relativeNames: true))
            case .cancelled(let error):
                reply = ExtensionWire.Reply(ending: "cancelled", items: [], errorDomain: error.domain, errorCode: error.code,
                                            errorDescription: error.localizedDescription)
            }
            try ExtensionWire.write(reply, to: directory.appendingPathComponent(ExtensionWire.replyName))
        } catch {
            fail(1, "the extension's reply could not be written to \(directory.path): \(error)")
        }
        // The completion handler runs on the main queue (it may be main-actor
        // isolated), and the process ends after it, as iOS ends the extension.
        DispatchQueue.main.async {
            then()
            exit(0)
        }
    }

    static func fail(_ status: Int32, _ message: String) -> Never {
        FileHandle.standardError.write(Data("ExtensionMain: \(message)\n".utf8))
        exit(status)
    }
}
#endif
