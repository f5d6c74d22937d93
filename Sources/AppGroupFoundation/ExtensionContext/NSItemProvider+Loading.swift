#if !canImport(Darwin)
import Foundation
import AppGroupContainer

extension NSItemProvider {
    /// Apple's completion handler of ``loadItem(forTypeIdentifier:options:completionHandler:)``.
    public typealias CompletionHandler = ((any NSSecureCoding)?, (any Error)?) -> Void

    /// The internal queue completion handlers run on (as on iOS: never the caller's).
    static let completionQueue = DispatchQueue(label: "NSItemProvider.completion", attributes: .concurrent)

    /// A value that crosses to the completion queue. Apple's handlers are not
    /// `@Sendable` and neither are the items; the provider hands each one to one
    /// handler call, once.
    struct Handoff<Value>: @unchecked Sendable {
        let value: Value
    }

    /// Loads the item registered as `typeIdentifier` (or a type conforming to it) and
    /// passes it to `completionHandler` on an internal queue: an `NSURL` for a URL or a
    /// file (cast it with `as? URL`), an `NSString` for text, `NSData` for data. A type
    /// the provider lacks passes nil and Apple's error (-1000). `options` are not used.
    public func loadItem(forTypeIdentifier typeIdentifier: String, options: [AnyHashable: Any]? = nil,
                       completionHandler: CompletionHandler? = nil) {
        guard let completionHandler else { return }
        let handler = Handoff(value: completionHandler)
        let found = representation(conformingTo: typeIdentifier)
        let types = registeredTypeIdentifiers
        Self.completionQueue.async {
            guard let found else {
                handler.value(nil, Self.unavailable(typeIdentifier, registered: types))
                return
            }
            let item: any NSSecureCoding
            switch found.value {
            case .data(let data): item = NSData(data: data)
            case .string(let string): item = NSString(string: string)
            case .url(let url), .file(let url): item = NSURL(string: url.absoluteString) ?? NSURL(fileURLWithPath: url.path)
            }
            handler.value(item, nil)
        }
    }

    /// Loads the bytes of the representation for `typeIdentifier`: a file's contents,
    /// a string's UTF-8, a URL's `absoluteString` in UTF-8, or the data itself.
    @discardableResult
    public func loadDataRepresentation(forTypeIdentifier typeIdentifier: String,
                                     completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress {
        let found = representation(conformingTo: typeIdentifier)
        let types = registeredTypeIdentifiers
        Self.completionQueue.async {
            guard let found else { return completionHandler(nil, Self.unavailable(typeIdentifier, registered: types)) }
            do {
                completionHandler(try Self.bytes(of: found.value), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
        return Self.finishedProgress()
    }

    /// Loads the representation for `typeIdentifier` as a file: a temporary copy
    /// (in `FileManager.default.temporaryDirectory`) that is removed when
    /// `completionHandler` returns, as on iOS (move or copy it to keep it). Data
    /// and text are written to such a file first; a web URL has no file
    /// (``ErrorCode/unavailableCoercionError``).
    @discardableResult
    public func loadFileRepresentation(forTypeIdentifier typeIdentifier: String,
                                     completionHandler: @escaping @Sendable (URL?, (any Error)?) -> Void) -> Progress {
        let found = representation(conformingTo: typeIdentifier)
        let types = registeredTypeIdentifiers
        Self.completionQueue.async {
            guard let found else { return completionHandler(nil, Self.unavailable(typeIdentifier, registered: types)) }
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("NSItemProvider-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let copy: URL
                switch found.value {
                case .file(let source):
                    copy = directory.appendingPathComponent(source.lastPathComponent)
                    try FileManager.default.copyItem(at: source, to: copy)
                case .url(let url):
                    throw Self.error(.unavailableCoercionError, "Cannot load a file representation of \(url.absoluteString) as \(typeIdentifier): it is not a file; load it with loadItem or loadObject(ofClass: URL.self)")
                case .data, .string:
                    copy = directory.appendingPathComponent(UUID().uuidString)
                    try Self.bytes(of: found.value).write(to: copy)
                }
                completionHandler(copy, nil)
            } catch {
                completionHandler(nil, error)
            }
        }
        return Self.finishedProgress()
    }

    /// Whether an object of class `aClass` (`URL.self`, `String.self`) can be loaded:
    /// a registered type conforms to one of the class's readable types.
    public func canLoadObject(ofClass aClass: any NSItemProviderReading.Type) -> Bool {
        readableRepresentation(for: aClass) != nil
    }

    /// Loads an object of class `aClass` (`URL.self`, `String.self`) from the first
    /// registered type it can read; Apple's error (-1000) when there is none.
    @discardableResult
    public func loadObject<T: NSItemProviderReading>(ofClass aClass: T.Type,
                                                   completionHandler: @escaping @Sendable (T?, (any Error)?) -> Void) -> Progress {
        let found = readableRepresentation(for: aClass)
        let types = registeredTypeIdentifiers
        let readable = aClass.readableTypeIdentifiersForItemProvider.first ?? "\(aClass)"
        let isURL = aClass == URL.self
        let make = Handoff(value: { (data: Data, type: String) throws -> T in try T.object(withItemProviderData: data, typeIdentifier: type) })
        Self.completionQueue.async {
            guard let found else {
                return completionHandler(nil, Self.unavailable(readable, registered: types))
            }
            do {
                let data: Data
                if case .file(let url) = found.value, isURL {
                    data = Data(url.absoluteString.utf8)  // the file's URL, not its contents
                } else {
                    data = try Self.bytes(of: found.value)
                }
                let object = try make.value(data, found.type)
                completionHandler(object, nil)
            } catch {
                completionHandler(nil, error)
            }
        }
        return Self.finishedProgress()
    }

    func readableRepresentation(for aClass: any NSItemProviderReading.Type) -> (type: String, value: Representation)? {
        for readable in aClass.readableTypeIdentifiersForItemProvider {
            if let found = representation(conformingTo: readable) { return found }
        }
        return nil
    }

    static func bytes(of value: Representation) throws -> Data {
        switch value {
        case .data(let data): return data
        case .string(let string): return Data(string.utf8)
        case .url(let url): return Data(url.absoluteString.utf8)
        case .file(let url): return try Data(contentsOf: url)
        }
    }

    static func finishedProgress() -> Progress {
        let progress = Progress(totalUnitCount: 1)
        progress.completedUnitCount = 1
        return progress
    }
}
#endif
