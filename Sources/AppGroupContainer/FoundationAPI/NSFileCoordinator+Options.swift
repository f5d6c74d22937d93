#if !canImport(Darwin)
import Foundation

extension NSFileCoordinator {
    /// How a coordinated read behaves, as Apple's `NSFileCoordinator.ReadingOptions`
    /// (same members and raw values).
    public struct ReadingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Presenters of the item are not asked to save first (they are still asked
        /// to relinquish it).
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        /// The target of a symbolic link is coordinated, and passed to the accessor,
        /// rather than the link.
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        /// Apple: only metadata at hand is needed (iCloud need not download).
        /// Nothing is ever remote here: accepted, the read is an ordinary one.
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        /// Apple: the accessor gets an uploadable copy of a package (a zip of a
        /// directory). Accepted; the accessor gets the item itself.
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// How a coordinated write behaves, as Apple's `NSFileCoordinator.WritingOptions`
    /// (same members and raw values). Every write takes the item's exclusive lock.
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The accessor deletes the item: its presenters are asked to accommodate
        /// the deletion (``NSFilePresenter/accommodatePresentedItemDeletion(completionHandler:)``)
        /// instead of relinquishing it.
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        /// The accessor moves the item; report the move with ``NSFileCoordinator/item(at:didMoveTo:)``.
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        /// The accessor merges into the item: its presenters are asked to save first.
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        /// The accessor replaces the item whole. Recorded intent; behaves as a plain write.
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        /// Only metadata independent of the content changes. Recorded intent;
        /// behaves as a plain write (presenters are still told of the change).
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }
}
#endif
