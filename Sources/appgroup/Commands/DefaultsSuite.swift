import AppGroupContainer
import Foundation
import SharedDefaults

/// A suite of a group's container, or a private suite of an app (`--bundle`),
/// opened through SharedDefaults as the inspector identity: what the `defaults`
/// commands work on.
struct DefaultsSuite {
    /// "group G" or "app B": whose suite this is, for messages.
    let owner: String
    /// The suite's name: `--suite`, else the group's own suite (named after the
    /// group), or with `--bundle` the app's own domain (named after the bundle).
    let name: String
    let defaults: SharedDefaults
    /// The name of the suite a bare `--suite`-less command means, for labels.
    private let defaultName: String

    /// The options every `defaults` command takes.
    static let options: Set<String> = ["root", "suite", "bundle"]

    /// Opens the suite the arguments name: GROUP (the first positional) or
    /// `--bundle BUNDLE`, and `--suite`. Returns it with the positionals after GROUP.
    static func open(_ arguments: Arguments, expecting range: ClosedRange<Int>, _ names: String) throws -> (DefaultsSuite, [String]) {
        var positionals = arguments.positionals
        let inspector = try Inspector(rootOption: arguments.option("root"))
        if let bundle = arguments.option("bundle") {
            try Arguments.expect(positionals, range, names)
            let (resolver, _) = try inspector.existingApplication(bundle)
            return (try open(application: resolver, suite: arguments.option("suite") ?? bundle), positionals)
        }
        try Arguments.expect(positionals, range.lowerBound + 1...range.upperBound + 1, "GROUP" + (names.isEmpty ? "" : " " + names))
        let (group, _) = try inspector.existingGroup(positionals.removeFirst())
        return (try open(inspector: inspector, group: group, suite: arguments.option("suite") ?? group.rawValue), positionals)
    }

    /// The suite `name` in the container of `group` (which exists).
    static func open(inspector: Inspector, group: GroupIdentifier, suite name: String) throws -> DefaultsSuite {
        let resolver = try inspector.resolver(for: group)
        return try DefaultsSuite(name: name, defaultName: group.rawValue, owner: "group \(group.rawValue)") {
            try SharedDefaults(requiringSuiteName: name, inContainerOf: group.rawValue, resolver: resolver)
        }
    }

    /// The private suite `name` of the app `resolver` acts as (its own domain when
    /// `name` is its bundle identifier); the app's container exists.
    static func open(application resolver: ContainerResolver, suite name: String) throws -> DefaultsSuite {
        let bundle = resolver.entitlements.bundleIdentifier
        return try DefaultsSuite(name: name, defaultName: bundle, owner: "app \(bundle)") {
            try SharedDefaults(requiringSuiteName: name == bundle ? nil : name, resolver: resolver)
        }
    }

    /// Opens the suite `open` makes, turning its errors into the tool's.
    private init(name: String, defaultName: String, owner: String, open: () throws -> SharedDefaults) throws {
        self.owner = owner
        self.defaultName = defaultName
        self.name = name
        do {
            defaults = try open()
        } catch let error as SharedDefaultsError {
            if case .invalidSuiteName = error { throw CLIError.usage("\(error)") }
            throw CLIError.failed("\(error)")
        }
    }

    /// True when the suite's file exists (`defaults` says a domain without one does not exist).
    var exists: Bool { FileManager.default.fileExists(atPath: defaults.fileURL.path) }

    /// "suite S of group G", for messages.
    var label: String { name == defaultName ? "suite \(name)" : "suite \(name) of \(owner)" }

    /// The suite's values, failing when it does not exist or its file is corrupt.
    /// - Throws: ``CLIError/notFound(_:)``, ``CLIError/failed(_:)``.
    func values() throws -> [String: Any] {
        guard exists else {
            throw CLIError.notFound("domain \(name) does not exist: no \(label) at \(defaults.fileURL.path)")
        }
        return try Self.translating { try defaults.persistentDomain() }
    }

    /// The suite's entries spelled exactly as stored, in byte order of their keys:
    /// keys that differ only in Unicode normalization are two entries here (a Swift
    /// dictionary would merge them).
    /// - Throws: as ``values()``.
    func entries() throws -> [(key: String, value: Any)] {
        _ = try values() // the existence and corruption checks, with their messages
        return try Self.translating {
            try defaults.storedKeys()
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                .compactMap { key in try defaults.load(forKey: key).map { (key, $0) } }
        }
    }

    /// Runs a library call, turning its errors into one-line tool errors. A corrupt
    /// suite gets the inspector's own advice: the tool changes nothing in it.
    static func translating<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CLIError {
            throw error
        } catch SharedDefaultsError.corruptSuite(let path, let problem, _) {
            throw CLIError.failed("corrupt suite file \(path): \(problem); appgroup reads and changes nothing in it. "
                                  + "Inspect it, then move it away (the next write by an app moves it aside itself)")
        } catch let error as SharedDefaultsError {
            throw CLIError.failed("\(error)")
        } catch let error as AppGroupError {
            throw CLIError.failed("\(error)")
        }
    }
}
