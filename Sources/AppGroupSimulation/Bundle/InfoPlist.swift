import AppGroupContainer
import AppGroupSystem
import Foundation
import PropertyLists

/// The Info.plist a ``SimulatedTarget`` is built from: the target's own file, or
/// its keys in code. Build settings in it (`$(PRODUCT_BUNDLE_IDENTIFIER)`,
/// `group.$(APP_ID)`) expand from the target's ``BuildSettings``, and the keys
/// Xcode adds for the target's kind are added where missing (see
/// ``SimulatedTarget/infoDictionary``).
public enum InfoPlist {
    /// An Info.plist file (XML or binary).
    case file(URL)
    /// The keys and values of an Info.plist, as `Bundle.infoDictionary` holds them
    /// (strings, numbers, booleans, dates, data, arrays and dictionaries).
    case dictionary([String: Any])
}

/// An Info.plist that cannot be used: not a property list, not a dictionary, or a
/// key that contradicts the target (a `CFBundleIdentifier` other than the
/// target's bundle identifier).
public struct InvalidInfoPlist: Sendable, Hashable, CustomStringConvertible {
    /// The file, or `dictionary` for one given in code.
    public let source: String
    /// The key at fault, or `(file)`.
    public let key: String
    /// What is wrong and what to do.
    public let problem: String

    public var description: String { "invalid Info.plist \(source), key \(key): \(problem)" }
}

/// The Info.plist of a target, as Xcode builds it.
enum InfoPlistBuilder {
    /// Apple's extension point of each kind of extension.
    static func extensionPoint(of kind: SimulatedTarget.Kind) -> String? {
        switch kind {
        case .shareExtension: "com.apple.share-services"
        case .widget: "com.apple.widgetkit-extension"
        case .notificationExtension: "com.apple.usernotifications.service"
        case .app, .other: nil
        }
    }

    /// The settings Xcode defines for every target, under those given.
    static func defaultSettings(name: String, kind: SimulatedTarget.Kind, entitlements: Entitlements) -> BuildSettings {
        let isExtension = extensionPoint(of: kind) != nil
        let team = entitlements.teamIdentifier
        return BuildSettings([
            "PRODUCT_NAME": name, "TARGET_NAME": name, "TARGETNAME": name, "EXECUTABLE_NAME": name,
            "FULL_PRODUCT_NAME": "$(PRODUCT_NAME).$(WRAPPER_EXTENSION)",
            // Xcode's entitlements processing knows the Info.plist's identifier too
            // (its iCloud key-value template is `$(TeamIdentifierPrefix)$(CFBundleIdentifier)`).
            "CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)",
            "PRODUCT_MODULE_NAME": "$(PRODUCT_NAME:c99extidentifier)",
            "PRODUCT_BUNDLE_IDENTIFIER": entitlements.bundleIdentifier,
            "DEVELOPMENT_TEAM": team, "TeamIdentifierPrefix": team + ".", "AppIdentifierPrefix": team + ".",
            "PRODUCT_BUNDLE_PACKAGE_TYPE": isExtension ? "XPC!" : "APPL",
            "WRAPPER_EXTENSION": isExtension ? "appex" : "app",
            "SDK_NAME": "iphoneos", "PLATFORM_NAME": "iphoneos", "EFFECTIVE_PLATFORM_NAME": "-iphoneos",
            "CONFIGURATION": "Debug", "DEVELOPMENT_LANGUAGE": "en",
            "MARKETING_VERSION": "1.0", "CURRENT_PROJECT_VERSION": "1",
        ])
    }

    /// The tree of `plist` (nil: an empty one) with `settings` expanded and
    /// Xcode's keys added where missing.
    static func build(_ plist: InfoPlist?, name: String, kind: SimulatedTarget.Kind, entitlements: Entitlements,
                      settings: BuildSettings) throws -> PropertyListTree {
        let (given, text, source) = try read(plist)
        let all = defaultSettings(name: name, kind: kind, entitlements: entitlements).adding(settings)
        guard case .dictionary(var info) = try PropertyListExpansion.expand(given, with: all, text: text, file: source) else {
            throw SimulationError.invalidInfoPlist(InvalidInfoPlist(source: source, key: "(root)", problem: "the root is a \(given.kind), expected a dictionary"))
        }
        func setting(_ key: String) throws -> PropertyListTree { .string(try all.expand("$(\(key))", file: source, line: nil)) }
        let added: [(String, () throws -> PropertyListTree)] = [
            ("CFBundleIdentifier", { try setting("PRODUCT_BUNDLE_IDENTIFIER") }),
            ("CFBundleExecutable", { try setting("EXECUTABLE_NAME") }),
            ("CFBundleName", { try setting("PRODUCT_NAME") }),
            ("CFBundlePackageType", { try setting("PRODUCT_BUNDLE_PACKAGE_TYPE") }),
            ("CFBundleInfoDictionaryVersion", { .string("6.0") }),
            ("CFBundleDevelopmentRegion", { try setting("DEVELOPMENT_LANGUAGE") }),
            ("CFBundleShortVersionString", { try setting("MARKETING_VERSION") }),
            ("CFBundleVersion", { try setting("CURRENT_PROJECT_VERSION") }),
            ("CFBundleSupportedPlatforms", { .array([.string("iPhoneOS")]) }),
        ]
        for (key, value) in added where info[key] == nil { info.set(try value(), forKey: key) }
        if let point = extensionPoint(of: kind) {
            var nsExtension = PropertyListDictionary()
            if let existing = info["NSExtension"] {
                guard case .dictionary(let dictionary) = existing else {
                    throw SimulationError.invalidInfoPlist(InvalidInfoPlist(source: source, key: "NSExtension", problem: "is a \(existing.kind), expected a dictionary"))
                }
                nsExtension = dictionary
            }
            if nsExtension["NSExtensionPointIdentifier"] == nil {
                nsExtension.set(.string(point), forKey: "NSExtensionPointIdentifier")
            }
            info.set(.dictionary(nsExtension), forKey: "NSExtension")
        }
        try check(info, source: source, entitlements: entitlements)
        return .dictionary(info)
    }

    /// The Info.plist's identity must be the target's, and its executable one file name.
    private static func check(_ info: PropertyListDictionary, source: String, entitlements: Entitlements) throws {
        guard case .string(let identifier)? = info["CFBundleIdentifier"], identifier == entitlements.bundleIdentifier else {
            throw SimulationError.invalidInfoPlist(InvalidInfoPlist(source: source, key: "CFBundleIdentifier",
                                   problem: "is \(info["CFBundleIdentifier"].map { "\($0)" } ?? "missing"), not the target's bundle identifier \(entitlements.bundleIdentifier) (its entitlements' application-identifier); make them agree, as signing requires"))
        }
        guard case .string(let executable)? = info["CFBundleExecutable"], !executable.isEmpty, executable != ".", executable != "..",
              !executable.contains("/"), !executable.contains("\0") else {
            throw SimulationError.invalidInfoPlist(InvalidInfoPlist(source: source, key: "CFBundleExecutable", problem: "must be a file name (no '/'), the name of the target's executable"))
        }
    }

    /// The tree, the bytes (for line numbers) and a name for messages.
    private static func read(_ plist: InfoPlist?) throws -> (PropertyListTree, Data, String) {
        switch plist {
        case nil:
            return (.dictionary(PropertyListDictionary()), Data(), "the target's Info.plist")
        case .file(let url):
            let data: Data
            do {
                data = try SandboxSystemCalls.readRegularFile(url.path, limit: 1 << 20)
            } catch {
                throw SimulationError.invalidInfoPlist(InvalidInfoPlist(source: url.path, key: "(file)", problem: "cannot be read (\(error)); check the path (a relative path is resolved from the current directory)"))
            }
            do {
                return (try PropertyListCodec.read(data), data, url.path)
            } catch {
                throw SimulationError.invalidInfoPlist(InvalidInfoPlist(source: url.path, key: "(file)", problem: "not a property list: \(error)"))
            }
        case .dictionary(let dictionary):
            do {
                let data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
                return (try PropertyListCodec.read(data), data, "dictionary")
            } catch {
                throw SimulationError.invalidInfoPlist(InvalidInfoPlist(source: "dictionary", key: "(root)",
                                       problem: "holds a value a property list cannot (\(error)); use strings, numbers, booleans, dates, data, arrays and dictionaries"))
            }
        }
    }
}
