#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// The asker's end of one request to a presenting process: a connection to the
/// socket its registry points at, believed only when the kernel says that the
/// process listening there is the one the registry names (pid and start time),
/// so a socket another process planted or swapped in gets no request and gives
/// no answer.
final class RemotePresenterConnection {
    /// The outcome of a connect.
    enum Opened {
        case connected(RemotePresenterConnection)
        /// Its queue of connections is full: try again.
        case busy
        /// Not to be asked: no socket, nobody listening, or a stranger's socket.
        case unreachable(String)
    }

    /// What a look at the connection found.
    enum Answer {
        /// A whole line: the answer, or nil for a line that is not one.
        case answered(RemotePresenterAnswer?)
        case waiting
        /// The presenting process closed it (or ended) without answering.
        case closed
    }

    private let fd: Int32
    private var partial: [UInt8] = []

    private init(fd: Int32) { self.fd = fd }

    deinit { SystemCalls.close(fd) }

    /// Connects to `remote`'s process, as the kernel names the listener.
    static func open(to remote: RemotePresenters.Remote) -> Opened {
        let socket = RemotePresenters.socketPath(of: remote.process, in: remote.tree)
        let (fd, pid): (Int32, pid_t)
        do {
            (fd, pid) = try LocalSockets.connect(in: RemotePresenters.directory(of: remote.tree), name: RemotePresenters.socketName(of: remote.process))
        } catch {
            if error == .EAGAIN { return .busy }
            if LocalSockets.isNobodyListening(error) { return .unreachable("nobody listens at \(AppGroupError.quote(socket)) (\(error))") }
            Diagnostics.warnOnce(about: "presenter socket " + socket, "NSFileCoordinator: \(remote.description) was not asked: its socket \(AppGroupError.quote(socket)) could not be reached: \(error)")
            return .unreachable("its socket could not be reached: \(error)")
        }
        let connection = RemotePresenterConnection(fd: fd)
        let start = ProcessState.startTime(of: pid)
        guard pid == remote.process.pid, remote.process.start == 0 || start == remote.process.start else {
            // Any process of the device may write `presenters/`: a socket put in
            // place of the presenter's is not its process's, and is told nothing.
            let why = "the process listening at \(AppGroupError.quote(socket)) is process \(pid), not the presenter's process \(remote.process.pid) (started at \(remote.process.start))"
            Diagnostics.warnOnce(about: "stranger at " + socket, "NSFileCoordinator: \(remote.description) was not asked, as if it had ended: \(why)")
            return .unreachable(why)
        }
        return .connected(connection)
    }

    /// Sends `message`, with `proof` beside it (closed here). False when the
    /// connection closed first.
    func send(_ message: RemotePresenterMessage, proof: Int32?) -> Bool {
        defer { if let proof { SystemCalls.close(proof) } }
        var bytes = message.line[...]
        var passing = proof
        var stalls = 0
        while !bytes.isEmpty {
            do {
                let sent = try LocalSockets.send(fd, Array(bytes), passing: passing)
                bytes = bytes.dropFirst(sent)
                if sent > 0 { passing = nil }
            } catch {
                // A line fits the socket's buffer: a full one is a peer that does not read.
                guard error == .EAGAIN, stalls < 100 else { return false }
                stalls += 1
                _ = SystemCalls.pollReadable([], timeout: 10)
            }
        }
        return true
    }

    /// Waits at most `milliseconds` for the answer line.
    func answer(waitingMilliseconds milliseconds: Int32) -> Answer {
        guard !SystemCalls.pollReadable([fd], timeout: milliseconds).isEmpty else { return .waiting }
        switch LocalSockets.receive(fd, capacity: 4096) {
        case .nothing:
            return .waiting
        case .ended:
            return .closed
        case .bytes(let bytes, let passed):
            if let passed { SystemCalls.close(passed) }
            if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                return .answered(RemotePresenterAnswer(line: String(decoding: partial + bytes[..<newline], as: UTF8.self)))
            }
            partial += bytes
            return partial.count > Int(RemotePresenters.messageLimit) ? .answered(nil) : .waiting
        }
    }
}
#endif
