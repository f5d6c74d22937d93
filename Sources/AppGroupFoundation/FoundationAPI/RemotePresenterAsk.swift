#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// What one coordinated access asks of the presenters of its items in other
/// processes, as iOS's file coordination daemon asks them: a request file in the
/// presenting process's inbox, a post on the device's signal table to wake it, and
/// a wait for its answer file (Signals/README.md, "Presenters in other processes").
///
/// Not waited for: a presenter whose process is suspended (stopped: its requests
/// stay in its inbox and reach it when it resumes, as on iOS since 8.2), or ended,
/// or that withdrew its registration. Used by one thread, the coordinating one.
final class RemotePresenterAsk {
    private let isCancelled: () -> Bool
    private let wake = DispatchSemaphore(value: 0)
    private var observations: [CoordinationTree: SignalObservation] = [:]
    /// Requests whose answers are no longer awaited: removed if they come.
    private var abandoned: [URL] = []

    private static let sequence = Locked<UInt64>(0)

    init(isCancelled: @escaping () -> Bool) { self.isCancelled = isCancelled }

    deinit {
        for observation in observations.values { observation.cancel() }
        for answer in abandoned { _ = try? FileOperations.removeFile(answer.path) }
    }

    /// Before reading `path`: each presenter saves (unless `.withoutChanges`), then
    /// relinquishes to the reader.
    func beforeReading(_ path: String, options: NSFileCoordinator.ReadingOptions,
                       into reacquirers: inout [PresenterRequests.Reacquirer]) throws {
        for remote in RemotePresenters.scan(forItem: path) {
            if !options.contains(.withoutChanges) { try ask(remote, .save, path) }
            try relinquish(remote, .relinquishToReader, path, into: &reacquirers)
        }
    }

    /// Before writing `path`: a deletion is accommodated; a merge saves first; every
    /// write relinquishes the item to the writer.
    func beforeWriting(_ path: String, options: NSFileCoordinator.WritingOptions,
                       into reacquirers: inout [PresenterRequests.Reacquirer]) throws {
        for remote in RemotePresenters.scan(forItem: path) {
            if options.contains(.forDeleting) {
                try ask(remote, remote.isDirectoryAbove ? .subitemDeletion : .deletion, path)
                continue
            }
            if options.contains(.forMerging) { try ask(remote, .save, path) }
            try relinquish(remote, .relinquishToWriter, path, into: &reacquirers)
        }
    }

    /// Asks to relinquish; unless the presenter answered without a reacquirer, the
    /// access ends (or fails) with a `reacquire` request: a presenter not waited
    /// for, or timed out, that answers later then gets its item back at once.
    private func relinquish(_ remote: RemotePresenters.Remote, _ kind: RemotePresenterMessage.Kind, _ path: String,
                            into reacquirers: inout [PresenterRequests.Reacquirer]) throws {
        var sent: UInt64 = 0
        let reacquirer = { (sent: UInt64) in
            PresenterRequests.Reacquirer {
                _ = Self.send(RemotePresenterMessage(.reacquire, presenter: remote.id, reference: sent, itemPath: path), to: remote)
            }
        }
        let answer: RemotePresenterAnswer?
        do {
            answer = try ask(remote, kind, path, sent: &sent)
        } catch {
            if sent != 0 { reacquirers.append(reacquirer(sent)) } // given back by the caller's failure path
            throw error
        }
        if case .done(reacquire: false)? = answer { return }
        if sent != 0 { reacquirers.append(reacquirer(sent)) } // 0: it never reached the inbox
    }

    @discardableResult
    private func ask(_ remote: RemotePresenters.Remote, _ kind: RemotePresenterMessage.Kind, _ path: String) throws -> RemotePresenterAnswer? {
        var sent: UInt64 = 0
        return try ask(remote, kind, path, sent: &sent)
    }

    /// Sends one request and waits for its answer. Nil when it is not waited for.
    /// - Throws: the presenter's error; a Cocoa locking error wrapping
    ///   ``AppGroupError/presenterDidNotAnswer(path:message:presenter:seconds:)``
    ///   after the timeout; the cancellation.
    private func ask(_ remote: RemotePresenters.Remote, _ kind: RemotePresenterMessage.Kind, _ path: String,
                     sent: inout UInt64) throws -> RemotePresenterAnswer? {
        let span = Tracing.begin(.presenterMessage)
        var outcome = "answered"
        defer { span?.end(kind.member, [("item", path), ("presenter", remote.description), ("outcome", outcome)]) }
        let me = ProcessKey.current
        let answers = RemotePresenters.directory(of: remote.tree) + "/" + me.name + ".answers"
        do {
            _ = try FileOperations.makeDirectory(answers)
            if observations[remote.tree] == nil {
                let wake = self.wake
                observations[remote.tree] = try SignalTable.forTree(remote.tree).observe("presenters.answers." + me.name) { wake.signal() }
            }
        } catch {
            outcome = "not asked: \(error)"
            Diagnostics.warn("NSFileCoordinator: \(remote.description) was not asked before an access to \(AppGroupError.quote(path)): \(error)")
            return nil
        }
        guard let number = Self.send(RemotePresenterMessage(kind, presenter: remote.id, itemPath: path), to: remote) else {
            outcome = "not asked: it withdrew"
            return nil
        }
        sent = number
        let answerURL = URL(fileURLWithPath: answers + "/" + String(number))
        let seconds = PresenterTimeout.seconds
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let data: Data?
            do {
                data = try AtomicFile.read(answerURL, below: RemotePresenters.root(of: remote.tree), limit: RemotePresenters.messageLimit)
            } catch {
                // Any process of the device may write there: a file that is not an
                // answer ends the wait, as an unreadable answer does.
                _ = try? FileOperations.removeFile(answerURL.path)
                Diagnostics.warnOnce(about: "unread " + answers, "NSFileCoordinator: an answer in \(AppGroupError.quote(answers)) could not be read, and was taken for none: \(error)")
                outcome = "unreadable answer"
                return nil
            }
            if let data {
                _ = try? FileOperations.removeFile(answerURL.path)
                guard let answer = RemotePresenterAnswer(data) else { outcome = "unreadable answer"; return nil }
                if let error = answer.error { outcome = "\(error)"; throw error }
                return answer
            }
            if isCancelled() { abandoned.append(answerURL); throw CancellationError() }
            // Not waited for: a suspended process (iOS since 8.2), an ended one, or
            // one that withdrew its registration while this waited.
            guard let state = remote.process.state else { outcome = "its process ended"; return nil }
            if state == .stopped {
                outcome = "its process is suspended: the request waits for it to resume"
                abandoned.append(answerURL)
                return nil
            }
            if !RemotePresenters.isRegistered(remote.process, in: remote.tree) { outcome = "it withdrew"; return nil }
            if Date() >= deadline {
                outcome = "no answer after \(seconds) s"
                abandoned.append(answerURL)
                let error = AppGroupError.presenterDidNotAnswer(path: path, message: kind.member, presenter: remote.description, seconds: seconds)
                throw NSFileCoordinator.Failure(error: CoordinationErrors.cocoa(error, url: URL(fileURLWithPath: path), writing: kind != .relinquishToReader))
            }
            _ = wake.wait(timeout: .now() + 0.05)
        }
    }

    /// Writes `message` into `remote`'s inbox and wakes its process. Returns the
    /// request's sequence; nil when the inbox is gone (the presenter withdrew).
    static func send(_ message: RemotePresenterMessage, to remote: RemotePresenters.Remote) -> UInt64? {
        let number = sequence.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let name = remote.process.name + ".inbox/" + RemotePresenterMessage.fileName(from: ProcessKey.current, sequence: number)
        do {
            try AtomicFile.write(message.data, to: RemotePresenters.url(remote.tree, name), below: RemotePresenters.root(of: remote.tree), durable: false)
            try SignalTable.forTree(remote.tree).post("presenters." + remote.process.name)
        } catch {
            if !FileOperations.isMissing(error) {
                Diagnostics.warn("NSFileCoordinator: \(remote.description) was not sent \(message.kind.member): \(error)")
            }
            return nil
        }
        return number
    }
}

extension RemotePresenters {
    /// Whether process `key` still has a registry in `tree`.
    static func isRegistered(_ key: ProcessKey, in tree: CoordinationTree) -> Bool {
        (try? FileOperations.status(directory(of: tree) + "/" + key.name + ".registry")) != nil
    }
}
#endif
