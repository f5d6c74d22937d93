import AppGroupContainer
import Foundation

/// Where a suite's property list lives, decided from its name and the identity.
///
/// - A name that is an App Group identifier (`group.…`, or the macOS Team-ID form)
///   is that group's shared suite, as on Apple's platforms:
///   `<root>/<group>/Library/Preferences/<group>.plist`. The identity must be
///   entitled to the group.
/// - Any other name is a plain suite private to the identity (on iOS it would live
///   in the app's own container, invisible to its extensions):
///   `<root>/Applications/<bundle id>/Library/Preferences/<name>.plist`.
/// - No name (nil) is the identity's own domain, `<bundle id>.plist` there.
/// - A group the identity is not entitled to is refused, or (when the caller
///   asks for iOS's behaviour) a suite of that name private to the identity,
///   beside its other private suites: what iOS gives such a target.
struct SuiteLocation: Sendable {
    /// The domain's name: the suite name, or the bundle identifier for nil.
    let name: String
    /// The group whose container holds the suite; nil for a plain suite.
    let group: GroupIdentifier?
    /// `…/Library/Preferences`.
    let directory: URL
    /// `…/Library/Preferences/<name>.plist`.
    let fileURL: URL
    /// The device root the suite lies under: its file is reached from there
    /// without following a symbolic link.
    let root: ContainerRoot
    /// Why a group's suite is private here: the identity is not entitled to the
    /// group, so the suite lives in its own storage (nil for every other suite).
    var privateBecause: AppGroupError? = nil
    /// The identity and root it was resolved for (nil when opened by container).
    var resolver: ContainerResolver? = nil

    /// The name Apple gives the domain shared by every application.
    static let globalDomain = "NSGlobalDomain"
    /// Longest suite name accepted, in UTF-8 bytes: the temporary file
    /// `.<name>.plist.tmp-<pid>-<random>` must still fit the 255-byte name limit.
    static let maximumNameLength = 200

    /// Resolves (and creates the directories of) the suite named `suiteName`.
    /// - Parameter privateWhenNotEntitled: for a group the identity lacks, a suite
    ///   private to the identity instead of an error (iOS's behaviour).
    /// - Throws: ``SharedDefaultsError/invalidSuiteName(_:problem:)`` or
    ///   ``SharedDefaultsError/suiteUnavailable(suite:reason:)``.
    static func resolve(suiteName: String?, resolver: ContainerResolver, privateWhenNotEntitled: Bool = false) throws(SharedDefaultsError) -> SuiteLocation {
        var location = try resolveDirectory(suiteName: suiteName, resolver: resolver, privateWhenNotEntitled: privateWhenNotEntitled)
        location.resolver = resolver
        return location
    }

    private static func resolveDirectory(suiteName: String?, resolver: ContainerResolver, privateWhenNotEntitled: Bool) throws(SharedDefaultsError) -> SuiteLocation {
        let bundle = resolver.entitlements.bundleIdentifier
        guard let suiteName else {
            return try plain(name: bundle, resolver: resolver)
        }
        if suiteName == globalDomain {
            throw .invalidSuiteName(suiteName, problem:
                "NSGlobalDomain is the domain every application reads; Apple refuses it as a suite name too. Use a group identifier or a name of your own")
        }
        if suiteName == bundle {
            throw .invalidSuiteName(suiteName, problem:
                "it is this process's own bundle identifier, whose domain is the standard defaults; Apple refuses it as a suite name. "
                + "Use SharedDefaults(suiteName: nil) for the app's own domain, or the App Group identifier to share")
        }
        if suiteName.hasPrefix("group.") || GroupIdentifier(validating: suiteName) != nil {
            let reason: AppGroupError
            do {
                let group = try GroupIdentifier.validated(suiteName)
                let container = try resolver.containerURL(ofGroup: group.rawValue)
                return at(container, name: suiteName, group: group, root: resolver.containerRoot)
            } catch {
                reason = error
            }
            if privateWhenNotEntitled, case .notEntitled = reason {
                var location = try plain(name: suiteName, resolver: resolver)
                location.privateBecause = reason
                return location
            }
            throw .suiteUnavailable(suite: suiteName, reason: reason)
        }
        return try plain(name: suiteName, resolver: resolver)
    }

    private static func plain(name: String, resolver: ContainerResolver) throws(SharedDefaultsError) -> SuiteLocation {
        if let problem = fileNameProblem(name) {
            throw .invalidSuiteName(name, problem: problem)
        }
        do {
            return at(try resolver.applicationContainerURL(), name: name, group: nil, root: resolver.containerRoot)
        } catch {
            throw .suiteUnavailable(suite: name, reason: error)
        }
    }

    static func at(_ container: URL, name: String, group: GroupIdentifier?, root: ContainerRoot) -> SuiteLocation {
        let directory = container.appendingPathComponent("Library/Preferences", isDirectory: true)
        return SuiteLocation(name: name, group: group, directory: directory,
                             fileURL: directory.appendingPathComponent(fileName(name), isDirectory: false), root: root)
    }

    /// `<name>.plist`, shortened by AppGroupContainer's one rule when longer than
    /// 255 bytes (a group identifier may be 255 bytes itself).
    static func fileName(_ name: String) -> String {
        FileNames.fitted(name + ".plist", keepingSuffix: ".plist")
    }

    /// Why `name` cannot be a file name inside Preferences, or nil when it can.
    static func fileNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > maximumNameLength { return "it is longer than \(maximumNameLength) bytes" }
        if name.contains("/") { return "it contains '/', and a suite name becomes a file name" }
        if name.hasPrefix(".") { return "it begins with '.', which is reserved for lock and temporary files" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "it contains a NUL or control character"
        }
        return nil
    }
}
