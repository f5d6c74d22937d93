import Foundation
import AppGroupSystem
import PropertyLists

// MARK: - Xcode .entitlements files

extension Entitlements {
    /// Loads an Xcode `.entitlements` file (an XML or binary property list) and
    /// expands `$(AppIdentifierPrefix)` and `$(TeamIdentifierPrefix)` to `TEAMID.`,
    /// and `$(CFBundleIdentifier)` / `$(PRODUCT_BUNDLE_IDENTIFIER)` to the bundle id,
    /// as signing does.
    ///
    /// Xcode adds `application-identifier` at signing time, so most files lack it:
    /// `bundleIdentifier` supplies it then. A file that has one must agree.
    /// - Throws: ``AppGroupError/invalidEntitlements(source:key:problem:)`` naming the
    ///   file and the key, for a file that is not a property list, wrong types, an
    ///   unexpanded build setting or a group that is not a valid identifier.
    public init(contentsOf url: URL, teamIdentifier: String, bundleIdentifier: String? = nil) throws {
        try self.init(loading: url, teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
    }

    /// ``init(contentsOf:teamIdentifier:bundleIdentifier:)``, typed: for the package's own code.
    package init(loading url: URL, teamIdentifier: String, bundleIdentifier: String?) throws(AppGroupError) {
        let data = try Self.readFile(url)
        try self.init(parsing: data, source: url.path, teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
    }

    /// The largest entitlements file read (1 MiB; a real one is a few hundred bytes).
    package static let fileSizeLimit: Int64 = 1 << 20

    /// Reads the file at `url` (a symbolic link is fine: the path is the developer's
    /// choice), refusing a FIFO, a device or a directory (a FIFO would block the
    /// process forever) and anything over ``fileSizeLimit``.
    static func readFile(_ url: URL) throws(AppGroupError) -> Data {
        let path = url.path
        func refuse(_ problem: String) -> AppGroupError { .invalidEntitlements(source: path, key: "(file)", problem: problem) }
        func unreadable(_ error: SystemError) -> AppGroupError {
            refuse("cannot be read: \(AppGroupError(error).description); check the path of the .entitlements file (a relative path is resolved from the current directory)")
        }
        let fd: Int32
        let st: SystemCalls.FileStatus
        do { fd = try SystemCalls.open(path, O_RDONLY | O_NONBLOCK) } catch { throw unreadable(error) }
        defer { SystemCalls.close(fd) }
        do { st = try SystemCalls.fstat(fd, path: path) } catch { throw unreadable(error) }
        guard SystemCalls.isRegular(st) else { throw refuse("is a \(SystemCalls.fileKind(st.st_mode)), not a regular file") }
        guard Int64(st.st_size) <= fileSizeLimit else {
            throw refuse("is \(st.st_size) bytes, over the \(fileSizeLimit)-byte limit for an entitlements file")
        }
        do { return try SystemCalls.readAll(fd, path: path, sizeHint: Int(st.st_size), limit: fileSizeLimit) } catch { throw unreadable(error) }
    }

    /// Parses the bytes of an entitlements property list; `source` names it in errors.
    public init(propertyList data: Data, source: String, teamIdentifier: String, bundleIdentifier: String? = nil) throws {
        try self.init(parsing: data, source: source, teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
    }

    /// ``init(propertyList:source:teamIdentifier:bundleIdentifier:)``, typed: for the package's own code.
    package init(parsing data: Data, source: String, teamIdentifier: String, bundleIdentifier: String?) throws(AppGroupError) {
        guard GroupIdentifier.isTeamIdentifier(teamIdentifier) else {
            throw AppGroupError.invalidEntitlements(source: source, key: "(team identifier)",
                problem: "\(AppGroupError.quote(teamIdentifier)) is not a ten-character upper-case Team ID such as A1B2C3D4E5")
        }
        guard data.count <= Int(Self.fileSizeLimit) else {
            throw AppGroupError.invalidEntitlements(source: source, key: "(file)",
                problem: "is \(data.count) bytes, over the \(Self.fileSizeLimit)-byte limit for an entitlements file")
        }
        let root: PropertyListTree
        do {
            root = try PropertyListCodec.read(data)
        } catch {
            throw AppGroupError.invalidEntitlements(source: source, key: "(file)",
                problem: "not a property list (\(data.count) bytes): \(error.message); an .entitlements file is an XML plist with a <dict> root")
        }
        guard case .dictionary(let dict) = root else {
            throw AppGroupError.invalidEntitlements(source: source, key: "(root)",
                problem: "the root is a \(Self.typeName(root)), expected a dictionary")
        }
        let expand = { (value: String, key: String) throws(AppGroupError) -> String in
            var s = value.replacingOccurrences(of: "$(AppIdentifierPrefix)", with: teamIdentifier + ".")
                .replacingOccurrences(of: "$(TeamIdentifierPrefix)", with: teamIdentifier + ".")
            if let bundleIdentifier {
                s = s.replacingOccurrences(of: "$(CFBundleIdentifier)", with: bundleIdentifier)
                    .replacingOccurrences(of: "$(PRODUCT_BUNDLE_IDENTIFIER)", with: bundleIdentifier)
            }
            if let range = s.range(of: "$(") {
                let name = s[range.lowerBound...].prefix(while: { $0 != ")" })
                throw AppGroupError.invalidEntitlements(source: source, key: key,
                    problem: "build setting \(name)) is not expanded; only $(AppIdentifierPrefix), $(TeamIdentifierPrefix) and the bundle identifier are")
            }
            return s
        }
        func strings(_ key: String) throws(AppGroupError) -> [String] {
            guard let value = dict[key] else { return [] }
            guard case .array(let array) = value else {
                throw AppGroupError.invalidEntitlements(source: source, key: key,
                    problem: "is a \(Self.typeName(value)), expected an array of strings")
            }
            return try array.enumerated().map { (index, element) throws(AppGroupError) -> String in
                guard case .string(let string) = element else {
                    throw AppGroupError.invalidEntitlements(source: source, key: "\(key)[\(index)]",
                        problem: "is a \(Self.typeName(element)), expected a string")
                }
                return try expand(string, key)
            }
        }
        var applicationIdentifier: String
        if let value = dict[Self.applicationIdentifierKey] {
            guard case .string(let string) = value else {
                throw AppGroupError.invalidEntitlements(source: source, key: Self.applicationIdentifierKey,
                    problem: "is a \(Self.typeName(value)), expected a string")
            }
            applicationIdentifier = try expand(string, Self.applicationIdentifierKey)
            if let bundleIdentifier, applicationIdentifier != teamIdentifier + "." + bundleIdentifier {
                throw AppGroupError.invalidEntitlements(source: source, key: Self.applicationIdentifierKey,
                    problem: "\(applicationIdentifier) disagrees with the team and bundle identifier given (\(teamIdentifier).\(bundleIdentifier))")
            }
        } else if let bundleIdentifier {
            applicationIdentifier = teamIdentifier + "." + bundleIdentifier
        } else {
            throw AppGroupError.invalidEntitlements(source: source, key: Self.applicationIdentifierKey,
                problem: "missing, and no bundle identifier was given to build it from (Xcode adds it at signing: pass the target's bundle id)")
        }
        try self.init(applicationIdentifier: applicationIdentifier,
                      applicationGroups: try strings(Self.applicationGroupsKey),
                      keychainAccessGroups: try strings(Self.keychainAccessGroupsKey),
                      source: source)
    }

    /// The value's type as the entitlements messages name it.
    static func typeName(_ value: PropertyListTree) -> String {
        switch value {
        case .integer, .real: return "number"
        case .data: return "data"
        default: return value.kind
        }
    }
}
