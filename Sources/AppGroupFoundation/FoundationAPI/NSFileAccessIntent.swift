#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// One item of an asynchronous coordinated access
/// (``NSFileCoordinator/coordinate(with:queue:byAccessor:)``): its URL and whether
/// it is read or written, with which options, as Apple's `NSFileAccessIntent`.
open class NSFileAccessIntent: NSObject {
    enum Role {
        case reading(NSFileCoordinator.ReadingOptions)
        case writing(NSFileCoordinator.WritingOptions)
    }

    private var intentURL = URL(fileURLWithPath: "/")
    private(set) var role = Role.reading([])

    /// The item to access. Use this URL inside the accessor, as on Apple platforms
    /// (where the system may update it after a move; here it stays as given).
    open var url: URL { intentURL }

    /// Apple's classes answer `init()`; an intent made so names "/" for reading.
    public required override init() {
        super.init()
    }

    /// An intent to read the item at `url`.
    open class func readingIntent(with url: URL, options: NSFileCoordinator.ReadingOptions = []) -> Self {
        let intent = self.init()
        intent.intentURL = url
        intent.role = .reading(options)
        return intent
    }

    /// An intent to write the item at `url`.
    open class func writingIntent(with url: URL, options: NSFileCoordinator.WritingOptions = []) -> Self {
        let intent = self.init()
        intent.intentURL = url
        intent.role = .writing(options)
        return intent
    }

    var access: NSFileCoordinator.Access {
        switch role {
        case let .reading(options): return NSFileCoordinator.Access(url: intentURL, reading: options)
        case let .writing(options): return NSFileCoordinator.Access(url: intentURL, writing: options)
        }
    }
}
#endif
