#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// The presenting side of ``RemotePresenterAsk``: this process's registries (what
/// it presents, per coordination tree) and the observation that wakes it when a
/// request arrives in its inbox (the reacquirers its presenters hand over are
/// kept by ``RemoteReacquirers``).
///
/// Requests are read on the signal thread, which never waits: each runs on its
/// presenter's queue, as every presenter message does, and the answer is written
/// when the presenter calls its completion handler.
final class RemotePresenterInbox: @unchecked Sendable {
    static let shared = RemotePresenterInbox()

    // Guarded by `publishing`: the trees this process is registered in.
    private let publishing = NSLock()
    private var observations: [CoordinationTree: SignalObservation] = [:]

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
                if observations[tree] == nil {
                    // Observed before the registry exists: whoever finds it posts after.
                    observations[tree] = try SignalTable.forTree(tree).observe("presenters." + ProcessKey.current.name) { [weak self] in
                        self?.drain(tree)
                    }
                }
                try RemotePresenters.publish(presenters, in: tree)
            } catch {
                Diagnostics.warn("NSFileCoordinator.addFilePresenter: presenters in \(tree.path) will not be asked by other processes before their accesses: \(error)")
            }
        }
        for (tree, observation) in observations where byTree[tree] == nil {
            observation.cancel()
            observations[tree] = nil
            RemotePresenters.withdraw(from: tree)
        }
    }

    // MARK: Requests

    /// Reads and runs every request in this process's inbox in `tree`, oldest first.
    private func drain(_ tree: CoordinationTree) {
        let inbox = RemotePresenters.directory(of: tree) + "/" + ProcessKey.current.name + ".inbox"
        var names: [String] = []
        _ = try? FileOperations.forEachEntry(in: inbox) { name in
            if names.count < RemotePresenters.nameLimit, !AtomicFile.isTemporaryName(name) { names.append(name) }
        }
        for name in names.sorted() {
            let url = URL(fileURLWithPath: inbox + "/" + name)
            var data: Data?
            do {
                data = try AtomicFile.read(url, below: RemotePresenters.root(of: tree), limit: RemotePresenters.messageLimit)
            } catch {
                Diagnostics.warnOnce(about: "unread " + inbox, "NSFilePresenter: a request in \(AppGroupError.quote(inbox)) was not read, and was dropped: \(error)")
            }
            _ = try? FileOperations.removeFile(url.path)
            guard let data, let message = RemotePresenterMessage(data),
                  let (asker, sequence) = RemotePresenterMessage.parse(fileName: name) else { continue }
            handle(message, from: asker, sequence: sequence, in: tree)
        }
    }

    private func handle(_ message: RemotePresenterMessage, from asker: ProcessKey, sequence: UInt64, in tree: CoordinationTree) {
        if message.kind == .reacquire {
            RemoteReacquirers.shared.reacquire(asker.name + "_" + String(message.reference), asker: asker)
            return
        }
        let reply = Reply(tree: tree, asker: asker, sequence: sequence)
        guard let presenter = PresenterRegistry.shared.presenter(withID: message.presenter) else {
            reply.send(RemotePresenterAnswer(nil)) // removed since: Apple sends it nothing more
            return
        }
        let item = URL(fileURLWithPath: message.itemPath)
        if let why = RemotePresenterInbox.refusal(of: message, to: presenter, from: asker) {
            // Any process of the device may write this inbox: a request the presenter
            // could not get from a real access is answered without reaching it.
            Diagnostics.warnOnce(about: "refused " + RemotePresenters.directory(of: tree) + "/" + ProcessKey.current.name + ".inbox",
                                  "NSFilePresenter: a \(message.kind.rawValue) request from process \(asker.pid) was not passed to the presenter: \(why) (further refused requests in this inbox are not reported)")
            reply.send(RemotePresenterAnswer(nil))
            return
        }
        let key = asker.name + "_" + String(sequence)
        let handoff = Handoff(value: presenter)
        switch message.kind {
        case .save:
            PresenterRegistry.send(to: presenter) { $0.savePresentedItemChanges { reply.send(RemotePresenterAnswer($0)) } }
        case .relinquishToWriter:
            PresenterRegistry.send(to: presenter) { presenter in
                presenter.relinquishPresentedItem(toWriter: { block in
                    RemoteReacquirers.shared.relinquished(block, key: key, presenter: handoff, asker: asker)
                    reply.send(RemotePresenterAnswer(nil, reacquire: block != nil))
                })
            }
        case .relinquishToReader:
            PresenterRegistry.send(to: presenter) { presenter in
                presenter.relinquishPresentedItem(toReader: { block in
                    RemoteReacquirers.shared.relinquished(block, key: key, presenter: handoff, asker: asker)
                    reply.send(RemotePresenterAnswer(nil, reacquire: block != nil))
                })
            }
        case .deletion:
            PresenterRegistry.send(to: presenter) { $0.accommodatePresentedItemDeletion { reply.send(RemotePresenterAnswer($0)) } }
        case .subitemDeletion:
            PresenterRegistry.send(to: presenter) { $0.accommodatePresentedSubitemDeletion(at: item) { reply.send(RemotePresenterAnswer($0)) } }
        case .reacquire:
            break
        }
    }
}

extension RemotePresenterInbox {
    /// Why `message` cannot come from a coordinated access by process `asker`
    /// (nil when it may): the item must be the presented one or, for a directory's
    /// presenter, below it (a subitem's deletion strictly below), and the asker
    /// another process than this one. An asker that has ended since is no reason
    /// to refuse: a suspended presenter gets its requests when it resumes.
    static func refusal(of message: RemotePresenterMessage, to presenter: NSFilePresenter, from asker: ProcessKey) -> String? {
        guard let url = presenter.presentedItemURL else { return "the presenter presents nothing now" }
        let presented = PresenterRegistry.standardPath(url)
        let below = message.itemPath.hasPrefix(presented == "/" ? "/" : presented + "/")
        switch message.kind {
        case .subitemDeletion where !below, .deletion where message.itemPath != presented:
            return "it names \(AppGroupError.quote(message.itemPath)), not an item the presenter of \(AppGroupError.quote(presented)) is asked about for that"
        default:
            if message.itemPath != presented && !below {
                return "it names \(AppGroupError.quote(message.itemPath)), neither the presented item \(AppGroupError.quote(presented)) nor an item below it"
            }
        }
        if asker == ProcessKey.current { return "it names this very process as the asker" }
        return nil
    }
}

/// The one answer to one request: written to the asker's answers directory, then
/// posted. A presenter that calls its handler twice changes nothing.
private final class Reply: Sendable {
    let tree: CoordinationTree
    let asker: ProcessKey
    let sequence: UInt64
    private let sent = Locked(false)

    init(tree: CoordinationTree, asker: ProcessKey, sequence: UInt64) {
        (self.tree, self.asker, self.sequence) = (tree, asker, sequence)
    }

    func send(_ answer: RemotePresenterAnswer) {
        let first = sent.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        // An asker that ended reads nothing: its directory is removed by the next scan.
        guard first, asker.state != nil else { return }
        let name = asker.name + ".answers/" + String(sequence)
        do {
            try AtomicFile.write(answer.data, to: RemotePresenters.url(tree, name), below: RemotePresenters.root(of: tree), durable: false)
            try SignalTable.forTree(tree).post("presenters.answers." + asker.name)
        } catch {
            Diagnostics.warn("NSFilePresenter: the answer to process \(asker.pid) could not be written: \(error)")
        }
    }
}
#endif
