#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// One item of an extension request, as Apple's `NSExtensionItem`: what the share
/// sheet hands an extension in ``NSExtensionContext/inputItems`` (a title, text and
/// attachments) and what an extension returns in
/// ``NSExtensionContext/completeRequest(returningItems:completionHandler:)``.
///
/// Foundation's name on Apple's platforms, declared here because Linux's Foundation
/// lacks it (see ``NSItemProvider`` for why this module). Across the process
/// boundary the titles travel as their text (attributes are not kept) and
/// ``userInfo`` keeps its string keys with string, number, Boolean, data and date
/// values (see <doc:ShareExtensionsOnLinux>).
open class NSExtensionItem: NSObject, @unchecked Sendable {
    // @unchecked: as on iOS, an item is filled in by one thread and then handed over.

    /// The item's title.
    open var attributedTitle: NSAttributedString?
    /// The item's text (the post's text in a share sheet).
    open var attributedContentText: NSAttributedString?
    /// The item's attachments: one provider per piece of content.
    open var attachments: [NSItemProvider]?
    /// Extra values of the item.
    open var userInfo: [AnyHashable: Any]?

    /// An empty item.
    public override init() {
        super.init()
    }

    open override var description: String {
        "<NSExtensionItem: title = \(attributedTitle?.string.debugDescription ?? "nil"), attachments = \(attachments ?? [])>"
    }
}
#endif
