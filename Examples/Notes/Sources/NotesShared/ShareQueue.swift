import Foundation
#if !canImport(Darwin)
import AppGroupFoundation // NSFilePresenter on Linux
#endif

/// The items the share extension received that the app has not taken yet:
/// `ShareQueue.json` in the group container. The extension appends, the app
/// takes; both under NSFileCoordinator, so a share made while the app takes,
/// or while another share is written, is never lost.
public struct ShareQueue {
    private let file: CoordinatedFile<[SharedItem]>

    /// Where the queue is.
    public var fileURL: URL { file.url }

    /// The queue of this target's App Group container.
    /// - Throws: ``NotesError/appGroupUnavailable(group:)`` for a target outside the group.
    public init() throws {
        file = CoordinatedFile(url: try NotesGroup.dataDirectory().appendingPathComponent("ShareQueue.json"), empty: [])
    }

    /// Adds `item` at the end (the share extension's side).
    public func append(_ item: SharedItem) throws {
        try file.update { $0.append(item) }
    }

    /// Hands every waiting item to `receive`, oldest first, and empties the queue
    /// only if `receive` returns: if it throws, the items stay for the next time.
    /// - Parameter presenter: the caller's presenter of the queue file, if it has
    ///   one (``ShareReceiver``); pass it, or the coordinator asks that presenter
    ///   to step aside on its own queue and waits for it.
    public func take<Result>(presenter: NSFilePresenter? = nil, _ receive: ([SharedItem]) throws -> Result) throws -> Result {
        try file.update(presenter: presenter) { waiting in
            let result = try receive(waiting)
            waiting.removeAll()
            return result
        }
    }

    /// The waiting items, without taking them.
    public func peek() throws -> [SharedItem] {
        try file.read()
    }
}
