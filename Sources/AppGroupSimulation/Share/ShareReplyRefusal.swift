import AppGroupContainer
import Foundation

/// The limits the simulated share sheet holds an extension's reply to. What an
/// extension returns is copied out of its container by the device before the host
/// sees it (<doc:SharingWithAnExtension>); a reply past a limit is refused whole
/// with ``SimulationError/shareReply(_:)``, and nothing past the limit is read.
public enum ShareReplyLimits {
    /// The largest reply itself (its items, their text, data and names): 16 MiB.
    public static let replyBytes: Int64 = 16 << 20
    /// The most the returned files may hold together: 1 GiB (an extension that
    /// hands back more is out of line with iOS's memory limit for share
    /// extensions, about 120 MB, many times over).
    public static let returnedFileBytes: Int64 = 1 << 30
    /// The most representations the returned items may carry together.
    public static let representations = 10_000
}

/// The reply of a share extension was refused: what the extension returned is not
/// something the device hands the host. `item` names what was refused: a returned
/// file's name as the reply gave it, or the reply itself.
public struct ShareReplyRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The extension that replied.
    public let target: String
    /// Its process, as the device names it.
    public let process: String
    /// What was refused: a returned item's name, or `reply.plist`.
    public let item: String
    /// Why.
    public let problem: String

    public var description: String {
        "the share extension \(target) (\(process)) returned \(item == "reply.plist" ? "a reply" : "the item '\(item)'") the device refuses: \(problem). "
            + "Nothing of it was handed to the host. A share extension returns files it wrote itself (completeRequest(returningItems:) "
            + "copies them into its request's Output folder): regular files, \(ShareReplyLimits.returnedFileBytes >> 20) MiB in all at most, "
            + "in a reply of at most \(ShareReplyLimits.replyBytes >> 20) MiB and \(ShareReplyLimits.representations) representations"
    }
}
