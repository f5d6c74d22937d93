#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// Data or a file carried to (or back from) an app extension, as Apple's
/// `NSItemProvider`: the attachments of an ``NSExtensionItem``.
///
/// On Apple's platforms this class is Foundation's; Linux's Foundation has none, so
/// it is declared here, in the module that already stands in for the Foundation
/// names Linux lacks (`NSFileCoordinator`, `NSFilePresenter`): iOS extension code
/// imports Foundation and finds it there, and `import AppGroupFoundation` (which
/// re-exports Foundation) finds it here, with the same names and signatures.
///
/// A provider is made from a URL, a string or data (``init(item:typeIdentifier:)``)
/// or from a file (``init(contentsOf:)``), and holds its representations as values:
/// what a share sheet hands an extension. Completion handlers are called on an
/// internal queue, as on iOS. A type the provider does not have completes with
/// Apple's error: `NSItemProviderErrorDomain`, ``ErrorCode/itemUnavailableError``
/// (-1000), "Cannot load representation of type ...".
///
/// Not here (see <doc:ShareExtensionsOnLinux>): registering load handlers (a
/// provider's values are given when it is made), preview images, and
/// `UTType`-typed overloads (pass the identifier string, e.g. `"public.url"`).
open class NSItemProvider: NSObject, @unchecked Sendable {
    // @unchecked: the representations are guarded by `registered`'s lock.

    /// One representation a provider holds.
    package enum Representation: Sendable, Equatable {
        case data(Data)
        case string(String)
        case url(URL)
        /// A file on disk: handed out as its URL, its bytes or a temporary copy.
        case file(URL)
    }

    let registered = Locked<[(type: String, value: Representation)]>([])

    /// An empty provider.
    public override init() {
        super.init()
    }

    /// A provider of `item` as `typeIdentifier` (Apple's `init(item:typeIdentifier:)`):
    /// an `NSURL` (`url as NSURL`), an `NSString` or `NSData`. Another kind of item,
    /// or a nil identifier, registers nothing.
    public convenience init(item: (any NSSecureCoding)?, typeIdentifier: String?) {
        self.init()
        guard let item, let typeIdentifier else { return }
        if let value = Self.representation(of: item) { register(value, as: typeIdentifier) }
    }

    /// A provider of the file at `fileURL`, registered as the type its name's extension
    /// names (`public.jpeg` for `.jpg`, `public.data` when unknown), as Apple's
    /// `init(contentsOf:)`; nil when `fileURL` is not a file URL.
    public convenience init?(contentsOf fileURL: URL!) {
        guard let fileURL, fileURL.isFileURL else { return nil }
        self.init()
        register(.file(fileURL.standardizedFileURL), as: TypeIdentifiers.forFile(fileURL))
    }

    /// The package's own registration, used by the share sheet's transport.
    package func register(_ value: Representation, as typeIdentifier: String) {
        registered.withLock { $0.append((typeIdentifier, value)) }
    }

    /// What the provider holds, in registration order.
    package var representations: [(type: String, value: Representation)] { registered.withLock { $0 } }

    /// The identifiers of the types registered, in the order they were registered.
    open var registeredTypeIdentifiers: [String] { representations.map(\.type) }

    /// Whether a registered type is `typeIdentifier` or conforms to it
    /// (`public.jpeg` conforms to `public.image`, `public.file-url` to `public.url`).
    open func hasItemConformingToTypeIdentifier(_ typeIdentifier: String) -> Bool {
        representation(conformingTo: typeIdentifier) != nil
    }

    /// The registered representation for `typeIdentifier`: the exact type first,
    /// then the first registered type that conforms to it.
    func representation(conformingTo typeIdentifier: String) -> (type: String, value: Representation)? {
        let all = representations
        if let exact = all.first(where: { $0.type.lowercased() == typeIdentifier.lowercased() }) { return exact }
        return all.first { TypeIdentifiers.conforms($0.type, to: typeIdentifier) }
    }

    static func representation(of item: any NSSecureCoding) -> Representation? {
        let object: Any = item
        if let url = object as? URL { return url.isFileURL ? .file(url.standardizedFileURL) : .url(url) }
        if let string = object as? String { return .string(string) }
        if let data = object as? Data { return .data(data) }
        return nil
    }

    open override var description: String {
        "<NSItemProvider: types = \(registeredTypeIdentifiers)>"
    }
}
#endif
