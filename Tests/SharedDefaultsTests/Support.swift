import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedDefaults

/// A fresh container root and the identities of a simulated app and its share
/// extension, both entitled to one group; removed when the test ends.
final class Device {
    static let group = "group.ai.systenics.notes"
    let root: URL
    let app: Entitlements
    let share: Entitlements
    let outsider: Entitlements

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("SharedDefaultsTests-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        app = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes", applicationGroups: [Self.group])
        share = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes.share", applicationGroups: [Self.group])
        outsider = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.other")
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func resolver(_ identity: Entitlements? = nil) -> ContainerResolver {
        ContainerResolver(root: root, entitlements: identity ?? app)
    }

    func defaults(_ suite: String? = Device.group, as identity: Entitlements? = nil) throws -> SharedDefaults {
        try SharedDefaults(requiringSuiteName: suite, resolver: resolver(identity))
    }

    /// The environment a probe needs to act as `identity` on this device.
    func environment(_ identity: Entitlements) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for (k, v) in identity.environment { env[k] = v }
        env[ContainerResolver.rootEnvironmentKey] = root.path
        env["APP_GROUP_QUIET"] = "1"
        return env
    }

    /// Starts `.build/debug/DefaultsProbe` with `arguments`, as `identity`.
    func probe(_ arguments: [String], as identity: Entitlements? = nil) throws -> Probe {
        try Probe(arguments: arguments, environment: environment(identity ?? share))
    }
}

/// A running DefaultsProbe process.
final class Probe: @unchecked Sendable {
    let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private let reader: Thread

    static let executable = SimulatedDevice.builtExecutable(named: "DefaultsProbe")

    init(arguments: [String], environment: [String: String]) throws {
        guard let executable = Self.executable else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "DefaultsProbe not built: run swift build first"])
        }
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = out
        process.standardError = err
        let handle = out.fileHandleForReading
        let box = LinesBox()
        reader = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                box.append(String(decoding: data, as: UTF8.self))
            }
            box.ended.signal()
        }
        lines = box
        try process.run()
        reader.start()
    }

    private let lines: LinesBox

    /// Standard output so far.
    var output: String { lines.text }

    /// Waits (up to `seconds`) until standard output contains `text`.
    func waitFor(_ text: String, seconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.contains(text) { return true }
            usleep(2_000)
        }
        return output.contains(text)
    }

    /// Waits for the process to exit (killing it after `seconds`) and returns its
    /// status, standard output and standard error.
    @discardableResult
    func finish(seconds: Double = 90) -> (status: Int32, output: String, error: String) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let errorText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = lines.ended.wait(timeout: .now() + 5)
        return (process.terminationStatus, output, errorText)
    }
}

final class LinesBox: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""
    let ended = DispatchSemaphore(value: 0)
    func append(_ s: String) { lock.withLock { buffer += s } }
    var text: String { lock.withLock { buffer } }
}

/// A value that is not a property-list type.
struct NotAPlist { var x = 1 }

/// Polls `condition` until it holds or `seconds` pass (a liveness deadline, not a timing assertion).
func eventually(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
