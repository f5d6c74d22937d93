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
    /// Files the extension returns are copied out of its container by the device
    /// before the items reach the host (regular files only, within
    /// ``ShareReplyLimits``; never through a link): the host loads the device's
    /// copies, which it may keep while the device lives.
    /// - Throws: ``SimulationError/executableNotBuilt(_:)``; ``SimulationError/container(_:)``
    ///   when the request cannot be written into the target's container, or a
    ///   file cannot be copied; ``SimulationError/shareReply(_:)`` when the
    ///   extension's reply is refused (a returned item that is not a regular file
    ///   in its `Output` folder, or a reply past ``ShareReplyLimits``).
    public func share(_ items: [NSExtensionItem], to target: SimulatedTarget, built name: String? = nil, arguments: [String] = [],
                      environment extra: [String: String] = [:], timeout: TimeInterval = 60) throws -> ShareOutcome {
        let request = try startShare(items, to: target, built: name, arguments: arguments, environment: extra, timeout: timeout)
        return try request.finish(request.process.wait(timeout: timeout), timeout: timeout)
    }

    /// The asynchronous form of ``share(_:to:built:arguments:environment:timeout:)``:
    /// suspends instead of blocking a thread while the extension runs.
    public func share(_ items: [NSExtensionItem], to target: SimulatedTarget, built name: String? = nil, arguments: [String] = [],
                      environment extra: [String: String] = [:], timeout: TimeInterval = 60,
                      isolation: isolated (any Actor)? = #isolation) async throws -> ShareOutcome {
        let request = try startShare(items, to: target, built: name, arguments: arguments, environment: extra, timeout: timeout)
        return try request.finish(await request.process.outcome(timeout: timeout), timeout: timeout)
    }

    /// Writes the request into the target's container and starts its process.
    /// Everything there is written by descriptor (the target may write its
    /// container, so no path into it is resolved twice): its `tmp` is reached from
    /// the device's root without following a link, the request's folder made in it.
    func startShare(_ items: [NSExtensionItem], to target: SimulatedTarget, built name: String?, arguments: [String],
                    environment extra: [String: String], timeout: TimeInterval) throws -> ShareRequest {
        let executable = try builtExecutable(named: name ?? target.executableName, for: target)
        let home = try target.dataContainer(on: self)
        let directory: HeldDirectory
        do {
            let temporary = try HeldDirectory.open(home.temporary.standardizedFileURL.path, below: root.standardizedFileURL.path)
            directory = try temporary.makeDirectory("ExtensionRequest-\(UUID().uuidString)")
            let input = try directory.makeDirectory("Input")
            let wireItems = try ExtensionWire.encode(items) { source, folderName in
                let folder = try input.makeDirectory(folderName)
                try folder.copyFile(at: source.path, toNewFile: source.lastPathComponent)
                return folder.path(of: source.lastPathComponent)
            }
            let point = (target.infoDictionary["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String ?? ""
            let request = ExtensionWire.Request(extensionPoint: point, items: wireItems, timeout: WaitTimeout.clamped(timeout))
            try directory.write(try ExtensionWire.encoded(request), toNewFile: ExtensionWire.requestName)
        } catch let error as AppGroupError {
            throw SimulationError.container(error)
        } catch {
            throw SimulationError.container(.unsafePath(path: home.temporary.path, problem: "the share request for \(target.name) could not be written into its container: \(error)"))
        }
        var environment = extra
        environment[ExtensionWire.environmentKey] = directory.path
        let process = try launch(executable, arguments, as: target, environment: environment)
        return ShareRequest(directory: directory, process: process, target: target.name, device: self.directory)
    }
}

/// One share request in flight: its directory in the extension's container (held
/// open: whatever the extension does to the path, the device keeps to the folder
/// it made) and its process.
struct ShareRequest {
    let directory: HeldDirectory
    let process: LaunchedProcess
    let target: String
    /// The device's own folder, where the returned files are copied.
    let device: URL

    /// The folder under the device's own directory (outside every container: no
    /// target reads or writes it) where returned files are copied for the host.
    static let returnedDirectoryName = "Returned"

    /// How the request ended, from the process's end and the reply it left.
    /// - Throws: ``SimulationError/shareReply(_:)`` when the reply is refused.
    func finish(_ outcome: ProcessOutcome, timeout: TimeInterval) throws -> ShareOutcome {
        // The inputs were the extension's to read during the request only, as on
        // iOS; removed by descriptor: a link the extension put in their place is
        // removed, never followed.
        defer { try? directory.removeTree("Input") }
        guard let reply = try readReply(outcome) else {
            if outcome.timedOut { return ShareOutcome(ending: .timedOut(seconds: WaitTimeout.clamped(timeout)), process: outcome) }
            return ShareOutcome(ending: .cancelled(error: nil), process: outcome)
        }
        guard reply.ending == "completed" else {
            let error = NSError(domain: reply.errorDomain ?? NSCocoaErrorDomain, code: reply.errorCode ?? NSUserCancelledError,
                                userInfo: reply.errorDescription.map { [NSLocalizedDescriptionKey: $0] } ?? [:])
            return ShareOutcome(ending: .cancelled(error: error), process: outcome)
        }
        let copies = try copyReturnedFiles(reply.items, outcome)
        return ShareOutcome(ending: .completed(returnedItems: ExtensionWire.decode(reply.items) { copies[$0] }), process: outcome)
    }

    /// The reply the extension left, read by descriptor and bounded; nil when there is none.
    private func readReply(_ outcome: ProcessOutcome) throws -> ExtensionWire.Reply? {
        let data: Data
        do {
            data = try directory.readRegularFile(ExtensionWire.replyName, limit: ShareReplyLimits.replyBytes)
        } catch .systemCall(_, _, let code) where code == .ENOENT {
            return nil
        } catch {
            throw refusal(ExtensionWire.replyName, outcome, Self.problem(error))
        }
        let reply: ExtensionWire.Reply
        do {
            reply = try ExtensionWire.decoded(ExtensionWire.Reply.self, from: data)
        } catch {
            throw refusal(ExtensionWire.replyName, outcome, "it is not a reply the share sheet can read: \(error)")
        }
        let count = ExtensionWire.representationCount(in: reply.items)
        guard count <= ShareReplyLimits.representations else {
            throw refusal(ExtensionWire.replyName, outcome, "it holds \(count) representations, more than \(ShareReplyLimits.representations)")
        }
        return reply
    }

    /// Copies every returned file out of the request's `Output` into the device's
    /// own folder: regular files only, named below `Output`, bounded in all by
    /// ``ShareReplyLimits/returnedFileBytes``. The reply's names to the copies.
    private func copyReturnedFiles(_ items: [ExtensionWire.Item], _ outcome: ProcessOutcome) throws -> [String: URL] {
        let names = ExtensionWire.fileNames(in: items)
        guard !names.isEmpty else { return [:] }
        var copies: [String: URL] = [:]
        var budget = ShareReplyLimits.returnedFileBytes
        let output: HeldDirectory
        do {
            guard let found = try directory.directory("Output") else {
                throw refusal(names[0], outcome, "there is no Output folder in its request folder \(directory.path)")
            }
            output = found
        } catch let error as AppGroupError {
            throw refusal(names[0], outcome, Self.problem(error))
        }
        let returned = try SimulationError.passingUp {
            let path = device.standardizedFileURL.path
            return try HeldDirectory.open(path, below: path).makeDirectory(Self.returnedDirectoryName).makeDirectory(UUID().uuidString)
        }
        for (number, name) in names.enumerated() where copies[name] == nil {
            let last = name.split(separator: "/").last.map(String.init) ?? ""
            do {
                let folder = try returned.makeDirectory("\(number)")
                let copied = try output.copyRegularFile(name, limit: budget, to: folder, as: last)
                budget -= copied
                copies[name] = URL(fileURLWithPath: folder.path(of: last))
            } catch {
                throw refusal(name, outcome, Self.problem(error))
            }
        }
        return copies
    }

    private func refusal(_ item: String, _ outcome: ProcessOutcome, _ problem: String) -> SimulationError {
        .shareReply(ShareReplyRefusal(target: target, process: String(describing: outcome.label), item: item, problem: problem))
    }

    private static func problem(_ error: any Error) -> String {
        switch error {
        case AppGroupError.notARegularFile(let path, let kind): "\(path) is a \(kind), not a regular file; it was not opened for reading"
        case AppGroupError.fileTooLarge(let path, let size, let limit): "\(path) holds \(size) bytes or more, past the limit of \(limit) bytes left; nothing past the limit was read"
        case AppGroupError.unsafePath(let path, let problem): "\(path): \(problem)"
        case AppGroupError.systemCall(let operation, let path, let errno) where errno == .ENOENT: "\(path) does not exist (\(operation)): a returned file lies in its request's Output folder"
        default: "\(error)"
        }
    }
}
