import AppGroupContainer
import AppGroupSystem
import Foundation
import PropertyLists

extension SimulatedTarget {
    /// A target built as Xcode builds one: its identity from an `.entitlements`
    /// file, its bundle from an Info.plist, both with their build settings
    /// (`$(VAR)`, `${VAR}`) expanded from `buildSettings`.
    ///
    /// ```swift
    /// let share = try SimulatedTarget(
    ///     name: "ReaderShare", kind: .shareExtension,
    ///     entitlementsFile: root.appendingPathComponent("ReaderShare/ReaderShare.entitlements"),
    ///     infoPlist: .file(root.appendingPathComponent("ReaderShare/Info.plist")),
    ///     teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.reader.share",
    ///     buildSettings: try BuildSettings(contentsOf: root.appendingPathComponent("Config/Shared.xcconfig")))
    /// ```
    ///
    /// Besides those given, the settings Xcode defines for every target are known:
    /// `PRODUCT_NAME`, `TARGET_NAME` and `EXECUTABLE_NAME` (`name`),
    /// `PRODUCT_MODULE_NAME`, `PRODUCT_BUNDLE_IDENTIFIER`, `DEVELOPMENT_TEAM`,
    /// `AppIdentifierPrefix` and `TeamIdentifierPrefix` (`TEAMID.`),
    /// `PRODUCT_BUNDLE_PACKAGE_TYPE`, `WRAPPER_EXTENSION`, `SDK_NAME` and `PLATFORM_NAME`
    /// (`iphoneos`), `CONFIGURATION` (`Debug`), `DEVELOPMENT_LANGUAGE`, `MARKETING_VERSION`
    /// and `CURRENT_PROJECT_VERSION`; a given setting of the same name wins.
    /// - Parameters:
    ///   - name: the target's name (its `PRODUCT_NAME`, and its executable's name in its bundle).
    ///   - kind: the kind, which chooses the bundle's type and extension point.
    ///   - entitlementsFile: the target's `.entitlements` file; nil for a target with none.
    ///   - infoPlist: the target's Info.plist; nil for one with only Xcode's keys.
    ///   - teamIdentifier: the Team ID that signs it.
    ///   - bundleIdentifier: its bundle identifier (the Info.plist's `CFBundleIdentifier` must agree).
    ///   - buildSettings: the build settings the files refer to.
    /// - Throws: ``SimulationError/buildSetting(_:)`` naming the file, the line and the
    ///   setting for a reference nobody defined; ``SimulationError/container(_:)`` with
    ///   `AppGroupError.invalidEntitlements(source:key:problem:)` for a bad `.entitlements`
    ///   file; ``SimulationError/invalidInfoPlist(_:)`` for a bad Info.plist.
    public init(name: String, kind: Kind, entitlementsFile: URL?, infoPlist: InfoPlist? = nil,
                teamIdentifier: String, bundleIdentifier: String, buildSettings: BuildSettings = [:]) throws {
        let entitlements = try SimulationError.passingUp {
            let settings = try Self.settings(name: name, kind: kind, teamIdentifier: teamIdentifier,
                                             bundleIdentifier: bundleIdentifier, given: buildSettings)
            guard let entitlementsFile else {
                return try Entitlements(teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
            }
            return try Self.entitlements(from: entitlementsFile, settings: settings,
                                         teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
        }
        try self.init(name: name, kind: kind, entitlements: entitlements, infoPlist: infoPlist, buildSettings: buildSettings)
    }

    /// A target with an identity built elsewhere and the bundle of `infoPlist`
    /// (see ``init(name:kind:entitlementsFile:infoPlist:teamIdentifier:bundleIdentifier:buildSettings:)``).
    /// - Throws: ``SimulationError/buildSetting(_:)`` or ``SimulationError/invalidInfoPlist(_:)``.
    public init(name: String, kind: Kind, entitlements: Entitlements, infoPlist: InfoPlist?, buildSettings: BuildSettings = [:]) throws {
        self.init(name: name, kind: kind, entitlements: entitlements)
        builtInfoPlist = try SimulationError.passingUp {
            let tree = try InfoPlistBuilder.build(infoPlist, name: name, kind: kind, entitlements: entitlements, settings: buildSettings)
            return try PropertyListCodec.write(tree, format: .xml)
        }
    }

    /// The Info.plist the target's bundle holds, as `Bundle.main.infoDictionary`
    /// answers in a spawned target: the one given, build settings expanded, with
    /// the keys Xcode adds where missing (`CFBundleIdentifier`, `CFBundleExecutable`,
    /// `CFBundleName`, `CFBundlePackageType` `APPL` or `XPC!`, `CFBundleVersion`...)
    /// and, for an extension, `NSExtension` with Apple's `NSExtensionPointIdentifier`
    /// (`com.apple.share-services`, `com.apple.widgetkit-extension`,
    /// `com.apple.usernotifications.service`).
    public var infoDictionary: [String: Any] {
        let data = infoPlistData
        return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any] ?? [:]
    }

    /// The name of the executable in the target's bundle (`CFBundleExecutable`).
    public var executableName: String {
        (infoDictionary["CFBundleExecutable"] as? String) ?? name
    }

    /// The Info.plist's bytes (XML).
    var infoPlistData: Data {
        if let builtInfoPlist { return builtInfoPlist }
        // Built from the kind alone: nothing given can fail (the name is checked when used).
        let tree = try? InfoPlistBuilder.build(nil, name: name, kind: kind, entitlements: entitlements, settings: [:])
        return tree.flatMap { try? PropertyListCodec.write($0, format: .xml) } ?? Data()
    }

    /// The target's own settings under those given.
    private static func settings(name: String, kind: Kind, teamIdentifier: String, bundleIdentifier: String,
                                 given: BuildSettings) throws -> BuildSettings {
        let identity = try Entitlements(teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
        return InfoPlistBuilder.defaultSettings(name: name, kind: kind, entitlements: identity).adding(given)
    }

    /// The identity in an `.entitlements` file, its build settings expanded first.
    private static func entitlements(from url: URL, settings: BuildSettings, teamIdentifier: String,
                                     bundleIdentifier: String) throws -> Entitlements {
        let data: Data
        do {
            data = try SandboxSystemCalls.readRegularFile(url.path, limit: Int(Entitlements.fileSizeLimit))
        } catch {
            // The package's own reader says what is wrong with the file (missing, a FIFO, too large).
            return try Entitlements(contentsOf: url, teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
        }
        guard let tree = try? PropertyListCodec.read(data) else {
            return try Entitlements(propertyList: data, source: url.path, teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
        }
        let expanded = try PropertyListExpansion.expand(tree, with: settings, text: data, file: url.path)
        return try Entitlements(propertyList: try PropertyListCodec.write(expanded, format: .xml), source: url.path,
                                teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
    }
}
