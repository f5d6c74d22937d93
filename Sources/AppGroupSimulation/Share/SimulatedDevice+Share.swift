import AppGroupContainer
import AppGroupFoundation
import Foundation

// The share sheet, simulated: what iOS does when the user picks an app's share
// extension. Kept apart from SimulatedDevice.swift (one concept a file).
extension SimulatedDevice {
    /// Shares `items` with the share extension `target`, as the share sheet does:
    /// starts the target's process (the executable product `name`, built beside the
    /// test bundle; nil: the target's `CFBundleExecutable`) with `arguments`, hands
    /// it the items as its `NSExtensionContext.inputItems` and waits for the request
    /// to end. The process receives its request through
    /// `ExtensionMain.run(_:)` (<doc:SharingWithAnExtension>).
    ///
    /// Files the items carry (`NSItemProvider(contentsOf:)`) are copied into the
    /// extension's own container first, as iOS hands an extension copies it may read
    /// inside its sandbox; URLs, text and data travel as values.
    ///
    /// ```swift
    /// let page = NSExtensionItem()
    /// page.attachments = [NSItemProvider(item: URL(string: "https://example.com")! as NSURL, typeIdentifier: "public.url")]
    /// let outcome = try device.share([page], to: notes.shareExtension, built: "NotesShareExtension")
    /// #expect(outcome.returnedItems != nil, "\(outcome)")
    /// ```
    ///
    /// Blocks the calling thread: in async code use the asynchronous form.
    /// - Parameters:
    ///   - items: the input items.
    ///   - target: the extension that receives them.
    ///   - name: the executable product to run as `target`.
    ///   - arguments: its arguments.
    ///   - extra: variables added to its environment.
    ///   - timeout: seconds the request may take; then the process is killed and the
    ///     outcome is ``ShareOutcome/Ending/timedOut(seconds:)``.
    /// - Returns: how the request ended (completed, cancelled, timed out).
    /// - Throws: ``ExecutableNotBuilt``, `AppGroupError` when the request cannot be
    ///   written into the target's container, or when a file cannot be copied.
    public func share(_ items: [NSExtensionItem], to target: SimulatedTarget, built name: String? = nil, arguments: [String] = [],
                      environment extra: [String: String] = [:], timeout: TimeInterval = 60) throws -> ShareOutcome {
        let request = try startShare(items, to: target, built: name, arguments: arguments, environment: extra, timeout: timeout)
        return request.finish(request.process.wait(timeout: timeout), timeout: timeout)
    }

    /// The asynchronous form of ``share(_:to:built:arguments:environment:timeout:)``:
    /// suspends instead of blocking a thread while the extension runs.
    public func share(_ items: [NSExtensionItem], to target: SimulatedTarget, built name: String? = nil, arguments: [String] = [],
                      environment extra: [String: String] = [:], timeout: TimeInterval = 60,
                      isolation: isolated (any Actor)? = #isolation) async throws -> ShareOutcome {
        let request = try startShare(items, to: target, built: name, arguments: arguments, environment: extra, timeout: timeout)
        return request.finish(await request.process.outcome(timeout: timeout), timeout: timeout)
    }

    /// Writes the request into the target's container and starts its process.
    func startShare(_ items: [NSExtensionItem], to target: SimulatedTarget, built name: String?, arguments: [String],
                    environment extra: [String: String], timeout: TimeInterval) throws -> ShareRequest {
        let executable = try builtExecutable(named: name ?? target.executableName, for: target)
        let home = try target.dataContainer(on: self)
        let directory = home.temporary.appendingPathComponent("ExtensionRequest-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let wireItems = try ExtensionWire.encode(items, copyingFilesInto: directory.appendingPathComponent("Input", isDirectory: true))
            let point = (target.infoDictionary["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String ?? ""
            try ExtensionWire.write(ExtensionWire.Request(extensionPoint: point, items: wireItems, timeout: WaitTimeout.clamped(timeout)),
                                    to: directory.appendingPathComponent(ExtensionWire.requestName))
        } catch let error as AppGroupError {
            throw error
        } catch {
            throw AppGroupError.unsafePath(path: directory.path, problem: "the share request for \(target.name) could not be written into its container: \(error)")
        }
        var environment = extra
        environment[ExtensionWire.environmentKey] = directory.path
        let process = try launch(executable, arguments, as: target, environment: environment)
        return ShareRequest(directory: directory, process: process)
    }
}

/// One share request in flight: its directory in the extension's container and its process.
struct ShareRequest {
    let directory: URL
    let process: LaunchedProcess

    /// How the request ended, from the process's end and the reply it left.
    func finish(_ outcome: ProcessOutcome, timeout: TimeInterval) -> ShareOutcome {
        // The inputs were the extension's to read during the request only, as on iOS.
        defer { try? FileManager.default.removeItem(at: directory.appendingPathComponent("Input", isDirectory: true)) }
        let replyURL = directory.appendingPathComponent(ExtensionWire.replyName)
        if let reply = try? ExtensionWire.read(ExtensionWire.Reply.self, from: replyURL) {
            if reply.ending == "completed" {
                return ShareOutcome(ending: .completed(returnedItems: ExtensionWire.decode(reply.items)), process: outcome)
            }
            let error = NSError(domain: reply.errorDomain ?? NSCocoaErrorDomain, code: reply.errorCode ?? NSUserCancelledError,
                                userInfo: reply.errorDescription.map { [NSLocalizedDescriptionKey: $0] } ?? [:])
            return ShareOutcome(ending: .cancelled(error: error), process: outcome)
        }
        if outcome.timedOut { return ShareOutcome(ending: .timedOut(seconds: WaitTimeout.clamped(timeout)), process: outcome) }
        return ShareOutcome(ending: .cancelled(error: nil), process: outcome)
    }
}
