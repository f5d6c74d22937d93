#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

extension RemotePresenterListener {
    /// Runs one request from process `request.asker` (the kernel's word) on its
    /// presenter's queue, or answers it without reaching the presenter when it
    /// could not come from a coordinated access of that process.
    func handle(_ request: Request) {
        let message = request.message
        let asker = request.asker
        let reply = request.reply
        defer { if let proof = request.proof { SystemCalls.close(proof) } }
        if message.kind == .reacquire {
            // Named by the asker's own request: another process can only give back its own.
            if asker != ProcessKey.current {
                RemoteReacquirers.shared.reacquire(asker.name + "_" + String(message.reference), asker: asker)
            }
            reply.finish()
            return
        }
        guard let presenter = PresenterRegistry.shared.presenter(withID: message.presenter) else {
            reply.send(RemotePresenterAnswer(nil)) // removed since: Apple sends it nothing more
            return
        }
        let item = URL(fileURLWithPath: message.itemPath)
        if let why = Self.refusal(of: message, to: presenter, from: asker, proof: request.proof) {
            Diagnostics.warnOnce(about: "refused presenter requests of \(asker.pid)",
                                 "NSFilePresenter: a \(message.kind.rawValue) request from process \(asker.pid) was not passed to the presenter: \(why) (further refused requests of that process are not reported)")
            reply.send(RemotePresenterAnswer(nil))
            return
        }
        let key = asker.name + "_" + String(message.sequence)
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

    /// Why `message` cannot come from a coordinated access by process `asker`
    /// (nil when it may): the asker is another process than this one; the item
    /// is the presented one or, for a directory's presenter, below it (a
    /// subitem's deletion strictly below); and `proof` shows the asker may reach
    /// it (``RemotePresenterReach``). An asker that has ended since is no reason
    /// to refuse: a suspended presenter gets its requests when it resumes.
    static func refusal(of message: RemotePresenterMessage, to presenter: NSFilePresenter, from asker: ProcessKey, proof: Int32?) -> String? {
        if asker.pid == ProcessKey.current.pid { return "it comes from this very process" }
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
        return RemotePresenterReach.refusal(of: proof, item: message.itemPath, presented: presented)
    }
}
#endif
