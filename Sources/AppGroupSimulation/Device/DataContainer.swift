import AppGroupContainer
import Foundation

/// A target's own data container on a simulated device, laid out as iOS lays out
/// an app's or an extension's: `Documents`, `Library` (with `Caches`,
/// `Preferences` and `Application Support`) and `tmp`. Each target has its own,
/// extensions too (they do not share the app's); only that target's processes
/// may reach it in a sandboxed launch.
///
/// It lives at `<root>/Applications/<bundle id>/`, the same directory as
/// `ContainerResolver.requireApplicationContainerURL()`, so the package's
/// `UserDefaults.standard` (`SharedDefaults`) and Foundation's, in a spawned
/// target, both keep the standard domain in `Library/Preferences/<bundle id>.plist`.
///
/// ```swift
/// let home = try notes.app.dataContainer(on: device)
/// let saved = home.documents.appendingPathComponent("articles.json")
/// ```
public struct DataContainer: Sendable, Hashable {
    /// The container itself: a spawned target's home (`NSHomeDirectory()`).
    public let home: URL

    /// `Documents`: `FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)`.
    public var documents: URL { home.appendingPathComponent("Documents", isDirectory: true) }
    /// `Library`: `.libraryDirectory` on iOS (Foundation on Linux answers no URL for it).
    public var library: URL { home.appendingPathComponent("Library", isDirectory: true) }
    /// `Library/Caches`: `.cachesDirectory`.
    public var caches: URL { library.appendingPathComponent("Caches", isDirectory: true) }
    /// `Library/Preferences`: where `UserDefaults.standard` keeps `<bundle id>.plist`.
    public var preferences: URL { library.appendingPathComponent("Preferences", isDirectory: true) }
    /// `Library/Application Support`: `.applicationSupportDirectory`.
    public var applicationSupport: URL { library.appendingPathComponent("Application Support", isDirectory: true) }
    /// `tmp`: `FileManager.default.temporaryDirectory` and `NSTemporaryDirectory()`.
    public var temporary: URL { home.appendingPathComponent("tmp", isDirectory: true) }

    /// The subdirectories iOS makes when it installs a target, relative to ``home``.
    public static let subdirectories = ["Documents", "Library", "Library/Caches", "Library/Preferences",
                                        "Library/Application Support", "tmp"]

    /// Where the container of `entitlements`'s target is under `root`, without touching the disk.
    init(root: URL, entitlements: Entitlements) {
        home = ContainerResolver(root: root, entitlements: entitlements).applicationContainerLocation()
    }

    /// Makes the container (directories 0700) unless it exists, as iOS does on the first launch.
    /// - Throws: `AppGroupError` when a directory cannot be made, or a symbolic
    ///   link or another user's directory stands where one belongs.
    static func make(root: URL, entitlements: Entitlements) throws -> DataContainer {
        // The resolver makes the root, its coordination tree and Library/{Caches,Preferences}
        // with its ownership and link checks; the rest are made here the same way.
        // By descriptor from the root: the target may write its container, and a
        // link it left where a folder belongs is refused, never followed.
        let base = try ContainerResolver(root: root, entitlements: entitlements).requireApplicationContainerURL()
        let home = try HeldDirectory.open(base.standardizedFileURL.path, below: root.standardizedFileURL.path)
        for sub in subdirectories {
            var directory = home
            for name in sub.split(separator: "/") { directory = try directory.makeDirectory(String(name)) }
        }
        return DataContainer(root: root, entitlements: entitlements)
    }
}

extension SimulatedTarget {
    /// This target's own data container on `device` (``DataContainer``), made on
    /// first use: the URLs a spawned target sees as its home, Documents, Library
    /// and tmp. In-process code (``run(on:environment:_:)``) cannot have
    /// Foundation answer with them (see <doc:TheSandbox>): use these URLs there.
    /// - Throws: ``SimulationError/container(_:)`` when it cannot be made.
    public func dataContainer(on device: SimulatedDevice) throws -> DataContainer {
        try SimulationError.passingUp { try DataContainer.make(root: device.root, entitlements: entitlements) }
    }
}

extension DataContainer {
    /// The environment variables that make Foundation, in a spawned target, answer
    /// with this container (swift-corelibs-foundation and swift-foundation read
    /// exactly these for the user's directories):
    ///
    /// - `HOME` and `CFFIXED_USER_HOME`: `NSHomeDirectory()` and
    ///   `FileManager.default.homeDirectoryForCurrentUser`. Foundation on Linux
    ///   prefers `CFFIXED_USER_HOME`, then the password database, and reads `HOME`
    ///   last, so `HOME` alone would leave them (and `Documents`) in the machine's home.
    /// - `TMPDIR`: `FileManager.default.temporaryDirectory`, `NSTemporaryDirectory()`.
    /// - `XDG_CONFIG_HOME` (`Library/Preferences`): where `UserDefaults.standard`
    ///   (CFPreferences) keeps `<bundle id>.plist`, and where `user-dirs.dirs` is
    ///   looked for (there is none, so `Documents` is `<home>/Documents`).
    /// - `XDG_DATA_HOME` (`Library/Application Support`): `.applicationSupportDirectory`.
    /// - `XDG_CACHE_HOME` (`Library/Caches`): `.cachesDirectory`.
    /// - `XDG_STATE_HOME` (`Library/Application Support`) and `XDG_RUNTIME_DIR` (`tmp`):
    ///   read by other libraries, so that they too stay inside.
    /// - `PWD` `/`: the working directory of an iOS process, as the device launches it.
    public var environment: [String: String] {
        [
            "HOME": home.path, "CFFIXED_USER_HOME": home.path, "TMPDIR": temporary.path,
            "XDG_CONFIG_HOME": preferences.path, "XDG_DATA_HOME": applicationSupport.path,
            "XDG_CACHE_HOME": caches.path, "XDG_STATE_HOME": applicationSupport.path,
            "XDG_RUNTIME_DIR": temporary.path, "PWD": "/",
        ]
    }
}
