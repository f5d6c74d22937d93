#if !canImport(Darwin)
import Foundation
import AppGroupContainer

extension NSFileCoordinator {
    /// How a coordinated read behaves, as Apple's `NSFileCoordinator.ReadingOptions`
    /// (same members and raw values). `.withoutChanges` spares presenters the
    /// request to save (they still relinquish); `.resolvesSymbolicLink` coordinates
    /// the link's target; `.immediatelyAvailableMetadataOnly` and `.forUploading` are
    /// accepted and change nothing (nothing is remote here; the accessor gets the
    /// item itself).
    public struct ReadingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Do not ask presenters to save first.
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        /// Coordinate, and pass to the accessor, the target of a symbolic link
        /// rather than the link itself.
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        /// Only metadata that is at hand is needed. Takes the same shared lock.
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        /// Make an uploadable copy of a package. Not meaningful here; ignored.
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// How a coordinated write behaves, as Apple's `NSFileCoordinator.WritingOptions`
    /// (same members and raw values). Every write takes the item's exclusive lock.
    /// `.forDeleting` asks presenters to accommodate the deletion instead of
    /// relinquishing (and the item's lock file goes with it); `.forMerging` asks
    /// them to save first; `.forMoving` expects ``item(at:didMoveTo:)``;
    /// `.forReplacing` and `.contentIndependentMetadataOnly` behave as plain writes.
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The accessor deletes the item.
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        /// The accessor moves the item; coordinate the destination too (pair form).
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        /// The accessor merges new content into the existing item.
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        /// The accessor replaces the item whole (an atomic save).
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        /// Only metadata that does not depend on the content changes.
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }
}
#endif
