import AppGroupContainer
import Foundation
import SharedDefaults

/// A suite of a group's container, opened through SharedDefaults as the inspector
/// identity: what `defaults read/write/delete` work on.
struct DefaultsSuite {
    let group: GroupIdentifier
    /// The suite's name: `--suite`, else the group's own suite (named after the group).
    let name: String
    let defaults: SharedDefaults

    /// The options every `defaults` command takes.
    static let options: Set<String> = ["root", "suite"]

    /// Opens the suite named by `--suite` (default: the group's own) in the
    /// container of `groupArgument`, which must exist.
    init(groupArgument: String, arguments: Arguments) throws {
        let inspector = try Inspector(rootOption: arguments.option("root"))
        let (group, _) = try inspector.existingGroup(groupArgument)
        self.group = group
        name = arguments.option("suite") ?? group.rawValue
        do {
            defaults = try SharedDefaults(requiringSuiteName: name, inContainerOf: group.rawValue,
                                          resolver: try inspector.resolver(for: group))
        } catch let error as SharedDefaultsError {
            if case .invalidSuiteName = error { throw CLIError.usage("\(error)") }
            throw CLIError.failed("\(error)")
        }
    }

    /// True when the suite's file exists (`defaults` says a domain without one does not exist).
    var exists: Bool { FileManager.default.fileExists(atPath: defaults.fileURL.path) }

    /// "suite S of group G", for messages.
    var label: String { name == group.rawValue ? "suite \(name)" : "suite \(name) of group \(group.rawValue)" }

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
