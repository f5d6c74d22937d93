#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// What one coordinated access asks of the presenters of its items in other
/// processes, as iOS's file coordination daemon asks them: a connection to the
/// presenting process's socket (``RemotePresenterConnection``), one request with
/// a descriptor proving this process may reach the item (``RemotePresenterReach``),
/// and a wait for the answer on the same connection (Signals/README.md,
/// "Presenters in other processes").
///
/// Not waited for: a presenter whose process is suspended (stopped: its request
/// stays queued on its socket and reaches it when it resumes, as on iOS since
/// 8.2), or ended, or that withdrew its registration, or whose socket is not its
/// process's. Used by one thread, the coordinating one.
final class RemotePresenterAsk {
    private let isCancelled: () -> Bool

    private static let sequence = Locked<UInt64>(0)

    init(isCancelled: @escaping () -> Bool) { self.isCancelled = isCancelled }

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
                Self.send(RemotePresenterMessage(.reacquire, presenter: remote.id, sequence: Self.nextSequence(), reference: sent, itemPath: path), to: remote)
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
        if sent != 0 { reacquirers.append(reacquirer(sent)) } // 0: it was never sent
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
        let seconds = PresenterTimeout.seconds
        let deadline = Date().addingTimeInterval(seconds)
        let timedOut = { () -> Error in
            outcome = "no answer after \(seconds) s"
            let error = AppGroupError.presenterDidNotAnswer(path: path, message: kind.member, presenter: remote.description, seconds: seconds)
            return NSFileCoordinator.Failure(error: CoordinationErrors.cocoa(error, url: URL(fileURLWithPath: path), writing: kind != .relinquishToReader))
        }
        // Not waited for: a suspended process (iOS since 8.2), an ended one, or
        // one that withdrew its registration.
        let notWaitedFor = { () -> String? in
            guard let state = remote.process.state else { return "its process ended" }
            if state == .stopped { return "its process is suspended: the request waits for it to resume" }
            if !RemotePresenters.isRegistered(remote.process, in: remote.tree) { return "it withdrew" }
            return nil
        }
        let number = Self.nextSequence()
        let message = RemotePresenterMessage(kind, presenter: remote.id, sequence: number, itemPath: path)
        var connection: RemotePresenterConnection?
        while connection == nil {
            switch RemotePresenterConnection.open(to: remote) {
            case .connected(let opened):
                connection = opened
            case .unreachable(let why):
                outcome = "not asked: " + why
                return nil
            case .busy:
                // Its queue of connections is full: a flood, or a process that does not read.
                if isCancelled() { throw CancellationError() }
                if let why = notWaitedFor() { outcome = why; return nil }
                if Date() >= deadline { throw timedOut() }
                usleep(50_000)
            }
        }
        guard let connection else { return nil }
        guard connection.send(message, proof: RemotePresenterReach.openProof(item: path, presented: remote.presentedPath)) else {
            outcome = "not asked: its connection closed"
            return nil
        }
        sent = number
        while true {
            switch connection.answer(waitingMilliseconds: 50) {
            case .answered(let answer):
                guard let answer else { outcome = "unreadable answer"; return nil }
                if let error = answer.error { outcome = "\(error)"; throw error }
                return answer
            case .closed:
                // It ended, or closed the connection unanswered (it took the request for none of its own).
                outcome = "its connection closed unanswered"
                return nil
            case .waiting:
                break
            }
            if isCancelled() { throw CancellationError() }
            if let why = notWaitedFor() { outcome = why; return nil }
            if Date() >= deadline { throw timedOut() }
        }
    }

    private static func nextSequence() -> UInt64 {
        sequence.withLock { value -> UInt64 in
            value += 1
            return value
        }
    }

    /// Sends `message` to `remote` without waiting for anything: a `reacquire`,
    /// which takes no answer. A queue of connections that stays full for a second
    /// loses it (with a diagnostic): the presenter's item then comes back when
    /// this process ends.
    static func send(_ message: RemotePresenterMessage, to remote: RemotePresenters.Remote) {
        for _ in 0..<20 {
            switch RemotePresenterConnection.open(to: remote) {
            case .connected(let connection):
                _ = connection.send(message, proof: nil)
                return
            case .unreachable:
                return
            case .busy:
                usleep(50_000)
            }
        }
        Diagnostics.warn("NSFileCoordinator: \(remote.description) was not sent \(message.kind.member): its socket takes no more connections")
    }
}

extension RemotePresenters {
    /// Whether process `key` still has a registry in `tree`.
    static func isRegistered(_ key: ProcessKey, in tree: CoordinationTree) -> Bool {
        (try? FileOperations.status(directory(of: tree) + "/" + key.name + ".registry")) != nil
    }
}
#endif
