#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// The presenting side of ``RemotePresenterAsk``: this process's registries (what
/// it presents, per coordination tree), the socket it listens on in each of those
/// trees, and the connections of the processes that ask (the reacquirers its
/// presenters hand over are kept by ``RemoteReacquirers``).
///
/// Who asks is the kernel's word (`SO_PEERCRED` at connect), never the request's.
/// One request a connection, one answer back on it. One thread reads every socket
/// and never waits for a presenter: each request runs on its presenter's queue,
/// as every presenter message does, and the answer is sent when the presenter
/// calls its completion handler. What a process may cost it is bounded: a request
/// line of at most ``RemotePresenters/messageLimit`` bytes, at most
/// ``connectionsPerAsker`` open connections per asking process and
/// ``connectionLimit`` in all, at most ``acceptsPerLook`` accepted per look.
final class RemotePresenterListener: @unchecked Sendable {
    static let shared = RemotePresenterListener()

    static let connectionsPerAsker = 16
    static let connectionLimit = 1024
    static let acceptsPerLook = 64
    /// Bytes read from one connection per look: a flood is read in turns.
    static let readSize = 16 * 1024

    // Guarded by `publishing`: the trees this process is registered in, the
    // socket file it made in each (device, inode), when they were last looked at.
    private let publishing = NSLock()
    private var published: Set<CoordinationTree> = []
    private var socketFiles: [CoordinationTree: (device: UInt64, inode: UInt64)] = [:]
    private var lastReclaim = Date()

    private struct Connection {
        let fd: Int32
        let tree: CoordinationTree
        let asker: ProcessKey
        var partial: [UInt8] = []
        var proof: Int32?
        /// Its request went to the presenter; an answer may follow.
        var dispatched = false
        /// Answered (or finished): closed at the next look.
        var done = false
    }

    /// A complete request, handled outside the lock (its answer may come at once).
    struct Request {
        let message: RemotePresenterMessage
        let asker: ProcessKey
        let tree: CoordinationTree
        let proof: Int32?
        let reply: RemotePresenterReply
    }

    // Guarded by `lock`: listening sockets by tree, connections by number (the
    // order they were accepted in), whether the thread runs, its wake-up pair.
    private let lock = NSLock()
    private var listeners: [CoordinationTree: Int32] = [:]
    private var connections: [UInt64: Connection] = [:]
    private var nextConnection: UInt64 = 0
    private var running = false
    private var wake: (Int32, Int32)?

    /// Rewrites this process's registries from the registered presenters, after
    /// each change: joins the trees it now presents in, leaves the others.
    func republish() {
        publishing.lock()
        defer { publishing.unlock() }
        var byTree: [CoordinationTree: [(UInt, String)]] = [:]
        for (id, path) in PresenterRegistry.shared.advertised {
            guard let (tree, _) = try? CoordinationTree.locate(path) else { continue }
            byTree[tree, default: []].append((id, path))
        }
        for (tree, presenters) in byTree {
            do {
                try RemotePresenters.prepare(tree)
                // Listening before the registry exists: whoever finds it can connect.
                if !published.contains(tree) { try listen(in: tree) }
                published.insert(tree)
                try RemotePresenters.publish(presenters, in: tree)
            } catch {
                Diagnostics.warn("NSFileCoordinator.addFilePresenter: presenters in \(tree.path) will not be asked by other processes before their accesses: \(error)")
            }
        }
        for tree in published where byTree[tree] == nil {
            published.remove(tree)
            RemotePresenters.withdraw(from: tree)
            stopListening(in: tree)
        }
    }

    // MARK: Sockets

    /// Listens in `tree` (under `publishing`), replacing whatever is at the name.
    private func listen(in tree: CoordinationTree) throws(AppGroupError) {
        let fd: Int32
        let path = RemotePresenters.socketPath(of: .current, in: tree)
        do {
            fd = try LocalSockets.listen(in: RemotePresenters.directory(of: tree), name: RemotePresenters.socketName(of: .current), backlog: 128)
        } catch {
            throw AppGroupError.systemCall(operation: "listen", path: path, errno: error)
        }
        socketFiles[tree] = (try? SystemCalls.lstat(path)).flatMap { $0 }.map { (UInt64($0.st_dev), UInt64($0.st_ino)) }
        let start = lock.withLock { () -> Bool in
            if let old = listeners[tree] { SystemCalls.close(old) }
            listeners[tree] = fd
            if wake == nil { wake = try? ProcessSystemCalls.socketPair() }
            defer { running = true }
            return !running
        }
        if start { startReading() } else { poke() }
    }

    private func stopListening(in tree: CoordinationTree) {
        socketFiles[tree] = nil
        lock.withLock {
            if let fd = listeners.removeValue(forKey: tree) { SystemCalls.close(fd) }
        }
        _ = try? FileOperations.removeFile(RemotePresenters.socketPath(of: .current, in: tree))
        poke()
    }

    private func poke() {
        if let wake = lock.withLock({ wake }) { SystemCalls.poke(wake.1) }
    }

    private func startReading() {
        let thread = Thread { [self] in
            while look() { reclaimSockets() }
        }
        thread.name = "NSFilePresenter requests"
        thread.start()
    }

    /// Any process of the device may remove this process's socket file or put
    /// another in its place (askers then believe nobody there): at most once a
    /// second, a socket file that is not the one this process made is replaced
    /// by a new listener, and said once.
    private func reclaimSockets() {
        publishing.lock()
        defer { publishing.unlock() }
        guard Date().timeIntervalSince(lastReclaim) >= 1 else { return }
        lastReclaim = Date()
        for tree in published {
            let path = RemotePresenters.socketPath(of: .current, in: tree)
            let found = (try? SystemCalls.lstat(path)).flatMap { $0 }.map { (UInt64($0.st_dev), UInt64($0.st_ino)) }
            if let found, let made = socketFiles[tree], found == made { continue }
            Diagnostics.warnOnce(about: "presenter socket replaced " + path,
                                 "NSFilePresenter: this process's socket \(AppGroupError.quote(path)) was removed or replaced by another process; it listens there anew (not reported again)")
            do {
                try listen(in: tree)
            } catch {
                Diagnostics.warnOnce(about: "presenter socket not made again " + path, "NSFilePresenter: this process's socket \(AppGroupError.quote(path)) could not be made again: \(error)")
            }
        }
    }

    /// One look: waits for a socket to be ready, reads what is there, hands every
    /// complete request to its presenter. False when there is nothing to read any
    /// more (the thread ends; the next listen starts another).
    private func look() -> Bool {
        let watched = lock.withLock { () -> [Int32]? in
            for (number, connection) in connections where connection.done { close(number) }
            if listeners.isEmpty && connections.isEmpty {
                running = false
                return nil
            }
            return (wake.map { [$0.0] } ?? []) + Array(listeners.values) + connections.keys.sorted().compactMap { connections[$0]?.fd }
        }
        guard let watched else { return false }
        let ready = Set(SystemCalls.pollReadable(watched, timeout: 1000))
        if ready.isEmpty { return true }
        var requests: [Request] = []
        lock.withLock {
            if let wake, ready.contains(wake.0) {
                var buffer = [UInt8](repeating: 0, count: 64)
                _ = buffer.withUnsafeMutableBytes { SystemCalls.readAvailable(wake.0, into: $0) }
            }
            for (tree, listener) in listeners where ready.contains(listener) { accept(on: listener, tree: tree) }
            for number in connections.keys.sorted() {
                guard let fd = connections[number]?.fd, ready.contains(fd) else { continue }
                if let request = read(number) { requests.append(request) }
            }
        }
        for request in requests { handle(request) }
        return true
    }

    /// Accepts what waits on `listener` (a bounded number), within the limits.
    private func accept(on listener: Int32, tree: CoordinationTree) {
        for _ in 0..<Self.acceptsPerLook {
            guard let (fd, pid) = LocalSockets.accept(listener) else { return }
            let asker = ProcessKey(pid: pid, start: ProcessState.startTime(of: pid) ?? 0)
            let open = connections.values.filter { $0.asker.pid == pid }.count
            guard open < Self.connectionsPerAsker, connections.count < Self.connectionLimit else {
                SystemCalls.close(fd)
                Diagnostics.warnOnce(about: "presenter connections of \(pid)",
                                     "NSFilePresenter: process \(pid) has \(open) requests open to this process's presenters (at most \(Self.connectionsPerAsker) per process, \(Self.connectionLimit) in all): its further connections are closed unread (not reported again)")
                continue
            }
            nextConnection += 1
            connections[nextConnection] = Connection(fd: fd, tree: tree, asker: asker)
        }
    }

    /// Reads what connection `number` sent: its request once the line is whole.
    /// The connection is taken out of the table while its bytes are added, so
    /// that they are appended in place (linear), never to a copy.
    private func read(_ number: UInt64) -> Request? {
        guard var connection = connections.removeValue(forKey: number) else { return nil }
        let drop = { (connection: Connection) in
            if let proof = connection.proof { SystemCalls.close(proof) }
            SystemCalls.close(connection.fd)
        }
        switch LocalSockets.receive(connection.fd, capacity: Self.readSize) {
        case .nothing:
            connections[number] = connection
            return nil
        case .ended:
            drop(connection) // an answer that comes later is not sent: the asker stopped waiting
            return nil
        case .bytes(let bytes, let passed):
            if let passed {
                if connection.proof == nil, !connection.dispatched { connection.proof = passed } else { SystemCalls.close(passed) }
            }
            if connection.dispatched {
                // One request a connection: more bytes are not a request this code wrote.
                drop(connection)
                return nil
            }
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
                connection.partial += bytes
                if connection.partial.count > Int(RemotePresenters.messageLimit) {
                    Diagnostics.warnOnce(about: "presenter request size of \(connection.asker.pid)",
                                         "NSFilePresenter: process \(connection.asker.pid) sent a request longer than \(RemotePresenters.messageLimit) bytes to this process's presenters: its connection was closed unread (not reported again)")
                    drop(connection)
                } else {
                    connections[number] = connection
                }
                return nil
            }
            let line = String(decoding: connection.partial + bytes[..<newline], as: UTF8.self)
            connection.partial = []
            connection.dispatched = true
            let proof = connection.proof
            connection.proof = nil
            guard newline == bytes.index(before: bytes.endIndex), let message = RemotePresenterMessage(line: line) else {
                Diagnostics.warnOnce(about: "presenter request form of \(connection.asker.pid)",
                                     "NSFilePresenter: process \(connection.asker.pid) sent this process's presenters something that is not a request: its connection was closed (not reported again)")
                if let proof { SystemCalls.close(proof) }
                drop(connection)
                return nil
            }
            connections[number] = connection
            return Request(message: message, asker: connection.asker, tree: connection.tree, proof: proof,
                           reply: RemotePresenterReply(listener: self, connection: number))
        }
    }

    /// Closes connection `number` (under `lock`).
    private func close(_ number: UInt64) {
        guard let connection = connections.removeValue(forKey: number) else { return }
        if let proof = connection.proof { SystemCalls.close(proof) }
        SystemCalls.close(connection.fd)
    }

    /// Sends `answer` (nil: none) on connection `number` if it is still open;
    /// closed at the next look.
    fileprivate func answer(_ answer: RemotePresenterAnswer?, on number: UInt64) {
        lock.withLock {
            guard var connection = connections[number], !connection.done else { return }
            if let answer { _ = try? LocalSockets.send(connection.fd, answer.line) }
            connection.done = true
            connections[number] = connection
        }
        poke()
    }
}

/// The one answer to one request, on the connection it came on. A presenter that
/// calls its handler twice changes nothing; an asker that stopped waiting gets
/// nothing.
final class RemotePresenterReply: Sendable {
    private let listener: RemotePresenterListener
    private let connection: UInt64

    fileprivate init(listener: RemotePresenterListener, connection: UInt64) {
        (self.listener, self.connection) = (listener, connection)
    }

    func send(_ answer: RemotePresenterAnswer) { listener.answer(answer, on: connection) }

    /// Ends the connection without an answer (a request that takes none).
    func finish() { listener.answer(nil, on: connection) }
}
#endif
