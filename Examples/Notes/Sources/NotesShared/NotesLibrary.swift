import Foundation
#if !canImport(Darwin)
import AppGroupFoundation // NSFilePresenter on Linux
#endif

/// The app's notes (`Notes.json` in the group container): what it received
/// from the share extension. Only the app writes it.
public struct NotesLibrary {
    private let notesFile: CoordinatedFile<[SharedItem]>
    private let queue: ShareQueue

    /// The library of this target's App Group container.
    public init() throws {
        notesFile = CoordinatedFile(url: try NotesGroup.dataDirectory().appendingPathComponent("Notes.json"), empty: [])
        queue = try ShareQueue()
    }

    /// Every note, oldest first.
    public func notes() throws -> [SharedItem] {
        try notesFile.read()
    }

    /// Moves the waiting shares into the notes, refreshes the widget's snapshot
    /// and asks WidgetKit to reload the widget; returns the notes it added,
    /// oldest first.
    ///
    /// The notes are saved before the queue is emptied, under the queue's
    /// coordinated write: if the app dies in between, the items are taken again
    /// next time and kept once (by ``SharedItem/id``), never lost.
    /// - Parameters:
    ///   - presenter: the caller's presenter of the queue file, if any.
    ///   - reloadingWidget: false is the classic bug: the snapshot changes but
    ///     the widget keeps showing its old timeline.
    @discardableResult
    public func receiveShares(presenter: NSFilePresenter? = nil, reloadingWidget: Bool = true) throws -> [SharedItem] {
        let added = try queue.take(presenter: presenter) { waiting in
            try notesFile.update { notes in
                let known = Set(notes.map(\.id))
                let new = waiting.filter { !known.contains($0.id) }
                notes += new
                return new
            }
        }
        try WidgetSnapshot(notes: try notes()).publish()
        if reloadingWidget { NotesWidgetReload.request() }
        return added
    }
}
