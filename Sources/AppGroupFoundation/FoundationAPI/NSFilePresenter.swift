#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// An object that presents a file or directory and wants to hear about
/// coordinated access to it, as Apple's `NSFilePresenter`.
///
/// Register it with ``NSFileCoordinator/addFilePresenter(_:)`` and remove it with
/// ``NSFileCoordinator/removeFilePresenter(_:)``. Apple's optional members are
/// requirements here with default implementations in an extension that do what
/// Apple does when a presenter lacks them, so a class declares only those it needs.
/// Every message arrives on ``presentedItemOperationQueue``.
///
/// What reaches a presenter on Linux (<doc:NSFileCoordinatorOnLinux>):
/// before a coordinated read or write of its item (or of an item below its
/// directory) by another coordinator in this process or another process of the
/// device, the save, relinquish and deletion requests; after a coordinated write or a
/// reported move, in this process or another, the change and move notices
/// (``presentedItemDidChange()``, ``presentedSubitemDidChange(at:)``,
/// ``presentedItemDidMove(to:)``, ``presentedSubitem(at:didMoveTo:)``).
/// Versions and ubiquity attributes (iCloud) never change here.
public protocol NSFilePresenter: NSObjectProtocol {
    /// The presented file or directory. Read when the presenter is registered (to
    /// watch for changes made by other processes) and at each coordinated access.
    var presentedItemURL: URL? { get }
    /// Where every message to this presenter runs.
    var presentedItemOperationQueue: OperationQueue { get }
    /// A second item presented with ``presentedItemURL`` (accepted; not used here).
    var primaryPresentedItemURL: URL? { get }

    /// Another coordinator is about to read: call `reader`, passing a block to run
    /// when it is done (or nil).
    func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void)
    /// Another coordinator is about to write: call `writer`, passing a block to run
    /// when it is done (or nil).
    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void)
    /// Save unsaved changes before another coordinator reads (or merges), then call
    /// `completionHandler` with nil or the error that stops that access.
    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// The item is about to be deleted by a coordinated write `.forDeleting`.
    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// The item was moved (reported with ``NSFileCoordinator/item(at:didMoveTo:)``).
    func presentedItemDidMove(to newURL: URL)
    /// The item's contents or attributes changed by a coordinated write elsewhere.
    func presentedItemDidChange()
    /// An item inside the presented directory was written by a coordinated write elsewhere.
    func presentedSubitemDidChange(at url: URL)
    /// An item inside the presented directory was moved.
    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL)
    /// An item appeared inside the presented directory (not reported here: a
    /// coordinated write is reported as a change).
    func presentedSubitemDidAppear(at url: URL)
    /// An item inside the presented directory is about to be deleted.
    func accommodatePresentedSubitemDeletion(at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// Ubiquity attributes changed (iCloud; never reported here).
    func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>)
    /// The ubiquity attributes the presenter wants to hear about (iCloud; unused).
    var observedPresentedItemUbiquityAttributes: Set<URLResourceKey> { get }
}

/// What Apple does for a presenter that does not implement an optional member.
extension NSFilePresenter {
    public var primaryPresentedItemURL: URL? { nil }
    public func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) { reader(nil) }
    public func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) { writer(nil) }
    public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    public func presentedItemDidMove(to newURL: URL) {}
    public func presentedItemDidChange() {}
    public func presentedSubitemDidChange(at url: URL) {}
    public func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) {}
    public func presentedSubitemDidAppear(at url: URL) {}
    public func accommodatePresentedSubitemDeletion(at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    public func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>) {}
    public var observedPresentedItemUbiquityAttributes: Set<URLResourceKey> { [] }
}
#endif
