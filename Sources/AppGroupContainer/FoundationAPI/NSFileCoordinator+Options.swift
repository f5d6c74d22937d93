#if !canImport(Darwin)
import Foundation

extension NSFileCoordinator {
    /// How a coordinated read behaves, as Apple's `NSFileCoordinator.ReadingOptions`
    /// (same members and raw values; the package's ``FileCoordinator`` shares them).
    /// With NSFileCoordinator: `.withoutChanges` spares presenters the request to
    /// save (they still relinquish); `.resolvesSymbolicLink` coordinates the link's
    /// target; `.immediatelyAvailableMetadataOnly` and `.forUploading` are accepted
    /// and change nothing (nothing is remote here; the accessor gets the item itself).
    public typealias ReadingOptions = FileCoordinator.ReadingOptions

    /// How a coordinated write behaves, as Apple's `NSFileCoordinator.WritingOptions`
    /// (same members and raw values). Every write takes the item's exclusive lock.
    /// With NSFileCoordinator: `.forDeleting` asks presenters to accommodate the
    /// deletion instead of relinquishing; `.forMerging` asks them to save first;
    /// `.forMoving` expects ``item(at:didMoveTo:)``; `.forReplacing` and
    /// `.contentIndependentMetadataOnly` behave as plain writes.
    public typealias WritingOptions = FileCoordinator.WritingOptions
}
#endif
