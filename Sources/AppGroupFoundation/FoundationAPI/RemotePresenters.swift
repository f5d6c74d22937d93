#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// Where the processes of a device find each other's file presenters: the
/// `presenters` directory of the coordination tree (``CoordinationTree``) that
/// holds the presented items' lock files. Signals/README.md, "Presenters in other
/// processes", is the protocol.
///
/// - `<P>.registry`: process P's presenters of items in this tree, one line each
///   (`<id> <percent-encoded path>`), after a header naming the process. Rewritten
///   atomically at each registration; removed with P's last presenter. It only
///   says where to connect: an asker believes the socket's listener only when
///   the kernel names P as its process.
/// - `<P>.sock`: the socket P listens on; a request and its answer travel on one
///   connection (``RemotePresenterAsk``, ``RemotePresenterListener``).
///
/// Whatever belongs to a process that has ended is removed by the next process
/// that looks (``scan(forItem:)``): a crash leaves nothing that blocks anyone.
enum RemotePresenters {
    static let directoryName = "presenters"
    /// Names read from the directory per scan, registries per process, requests
    /// per drain: bounds on what a crafted or runaway tree costs a writer.
    static let nameLimit = 4096
    static let fileLimit: Int64 = 1 << 20
    static let presenterLimit = 1024
    /// A request or an answer: one short line.
    static let messageLimit: Int64 = 1 << 16

    /// The name of process `key`'s socket.
    static func socketName(of key: ProcessKey) -> String { key.name + ".sock" }
    static func socketPath(of key: ProcessKey, in tree: CoordinationTree) -> String { directory(of: tree) + "/" + socketName(of: key) }

    /// A presenter registered by another process.
    struct Remote: Sendable {
        let process: ProcessKey
        let label: String
        let id: UInt
        let presentedPath: String
        let tree: CoordinationTree

        var isDirectoryAbove: Bool = false

        /// How an error names it: process, name, target, and what it presents.
        var description: String {
            "the file presenter of \(AppGroupError.quote(presentedPath)) in process \(process.pid) (\(label))"
        }
    }

    static func directory(of tree: CoordinationTree) -> String { tree.path + "/" + directoryName }
    static func root(of tree: CoordinationTree) -> ContainerRoot? { tree.root.map(ContainerRoot.init(path:)) }
    static func url(_ tree: CoordinationTree, _ name: String) -> URL { URL(fileURLWithPath: directory(of: tree) + "/" + name) }

    /// This process as the registry's header names it: its name and, in a
    /// simulated target, its application identifier.
    static let label: String = {
        var text = ProcessInfo.processInfo.processName
        if let target = ProcessInfo.processInfo.environment["APP_GROUP_APPLICATION_IDENTIFIER"], !target.isEmpty { text += ", " + target }
        return text
    }()

    // MARK: Registering (the presenting process)

    /// Makes `presenters/` in `tree`.
    static func prepare(_ tree: CoordinationTree) throws(AppGroupError) {
        try tree.open(creating: true).close()
        _ = try FileOperations.makeDirectory(directory(of: tree))
    }

    /// Writes this process's registry in `tree`: `presenters` as (id, path).
    static func publish(_ presenters: [(UInt, String)], in tree: CoordinationTree) throws(AppGroupError) {
        var text = "appgroup-presenters 1\nprocess " + (label.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "?") + "\n"
        for (id, path) in presenters.prefix(presenterLimit) { text += "\(id) \(ChangeSignal.encode(path))\n" }
        try AtomicFile.write(Data(text.utf8), to: url(tree, ProcessKey.current.name + ".registry"), below: root(of: tree), durable: false)
    }

    /// Removes this process's registry in `tree` (its socket goes with its listener).
    static func withdraw(from tree: CoordinationTree) {
        _ = try? AtomicFile.remove(url(tree, ProcessKey.current.name + ".registry"), below: root(of: tree), durable: false)
    }

    // MARK: Finding (the asking process)

    /// The presenters other live processes registered for `itemPath` or a
    /// directory above it, in its tree; what ended processes left is removed.
    static func scan(forItem itemPath: String) -> [Remote] {
        guard let (tree, _) = try? CoordinationTree.locate(itemPath) else { return [] }
        let folder = directory(of: tree)
        var names: [String] = []
        let found = (try? FileOperations.forEachEntry(in: folder) { name in
            if names.count < nameLimit { names.append(name) }
        }) ?? false
        guard found else { return [] }
        var byProcess: [ProcessKey: [String]] = [:]
        for name in names where !AtomicFile.isTemporaryName(name) {
            guard let key = ProcessKey(prefixOf: Substring(name)), key != ProcessKey.current else { continue }
            byProcess[key, default: []].append(name)
        }
        var remotes: [Remote] = []
        for (key, files) in byProcess {
            guard key.state != nil else {
                // Ended: its registration and socket go (a crash leaves them).
                for file in files { try? FileOperations.removeTree(folder + "/" + file, maximumDepth: 1) }
                continue
            }
            guard files.contains(key.name + ".registry") else { continue }
            remotes += registered(by: key, in: tree).filter { remote in
                remote.presentedPath == itemPath || itemPath.hasPrefix(remote.presentedPath == "/" ? "/" : remote.presentedPath + "/")
            }.map { remote in
                var remote = remote
                remote.isDirectoryAbove = remote.presentedPath != itemPath
                return remote
            }
        }
        return remotes
    }

    /// The presenters in process `key`'s registry in `tree` (empty when it is gone).
    static func registered(by key: ProcessKey, in tree: CoordinationTree) -> [Remote] {
        let file = url(tree, key.name + ".registry")
        let data: Data
        do {
            guard let read = try AtomicFile.read(file, below: root(of: tree), limit: fileLimit) else { return [] }
            data = read
        } catch {
            Diagnostics.warnOnce(about: "unread " + file.path, "NSFileCoordinator: the presenters' registry \(AppGroupError.quote(file.path)) was not read, and its presenters are not asked: \(error)")
            return []
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard lines.count >= 2, lines[0] == "appgroup-presenters 1", lines[1].hasPrefix("process "),
              let label = String(lines[1].dropFirst("process ".count)).removingPercentEncoding else { return [] }
        return lines.dropFirst(2).prefix(presenterLimit).compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 2, let id = UInt(fields[0]), let path = ChangeSignal.decode(fields[1]) else { return nil }
            return Remote(process: key, label: label, id: id, presentedPath: path, tree: tree)
        }
    }
}
#endif
