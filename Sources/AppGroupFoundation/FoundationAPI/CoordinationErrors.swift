#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// The errors NSFileCoordinator hands back through its `error:` pointer, in
/// Cocoa's domain with Apple's codes, so that code checking `error.code` reads
/// them as on iOS. The package's own error stays reachable as the underlying error.
enum CoordinationErrors {
    /// `NSUserCancelledError`: ``NSFileCoordinator/cancel()`` stopped the wait.
    static func cancelled(_ url: URL?) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: "The file coordination was cancelled (NSFileCoordinator.cancel()); the accessor was not called."]
        if let url { info[NSURLErrorKey] = url; info[NSFilePathErrorKey] = url.path }
        return NSError(domain: NSCocoaErrorDomain, code: NSUserCancelledError, userInfo: info)
    }

    /// A presenter's save or deletion handler failed: its own error, as Apple passes it.
    static func presenter(_ error: Error) -> NSError { error as NSError }

    /// The package's error for `url`, as the Cocoa error Apple uses for that cause
    /// (reading codes for a read, writing codes for a write).
    static func cocoa(_ error: Error, url: URL, writing: Bool) -> NSError {
        let bridged = error as NSError
        if bridged.domain == NSCocoaErrorDomain { return bridged }
        let code: Int
        switch error as? AppGroupError {
        case .unsafePath?:
            code = writing ? NSFileWriteInvalidFileNameError : NSFileReadInvalidFileNameError
        case let .systemCall(_, _, errno)?:
            code = Self.code(for: errno, writing: writing)
        case .untrustedDirectory?:
            code = writing ? NSFileWriteNoPermissionError : NSFileReadNoPermissionError
        case .nestedCoordinationUpgrade?, .coordinationTimedOut?, .olderLockingProtocol?, .presenterDidNotAnswer?:
            code = NSFileLockingError
        default:
            code = writing ? NSFileWriteUnknownError : NSFileReadUnknownError
        }
        let what = writing ? "writing" : "reading"
        let info: [String: Any] = [
            NSLocalizedDescriptionKey: "NSFileCoordinator could not coordinate \(what) \(AppGroupError.quote(url.path)): \(error)",
            NSFilePathErrorKey: url.path,
            NSURLErrorKey: url,
            NSUnderlyingErrorKey: error as NSError,
        ]
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    private static func code(for errno: Errno, writing: Bool) -> Int {
        switch errno {
        case .ENOENT, .ENOTDIR: return writing ? NSFileNoSuchFileError : NSFileReadNoSuchFileError
        case .EACCES, .EPERM: return writing ? NSFileWriteNoPermissionError : NSFileReadNoPermissionError
        case .EROFS: return writing ? NSFileWriteVolumeReadOnlyError : NSFileReadNoPermissionError
        case .ENAMETOOLONG: return writing ? NSFileWriteInvalidFileNameError : NSFileReadInvalidFileNameError
        case .ENOSPC: return writing ? NSFileWriteOutOfSpaceError : NSFileReadUnknownError
        default: return writing ? NSFileWriteUnknownError : NSFileReadUnknownError
        }
    }
}
#endif
