import Foundation
import PropertyLists

/// The one record of a simulated device's state (``DeviceState``): the keychain's
/// data protection, WidgetKit's clock, the protected-data notifications and the
/// shared suites all read it, and nothing keeps a copy.
///
/// It lives at `<root>/Devices/<name>.device-state.plist` (a binary property list,
/// 0600), with the device's other records. Only the test process (the device, its
/// tools) writes it: a target launched by the device has `Devices` read-only in its
/// sandbox, enforced by the kernel, and this store refuses a change asked from a
/// target before touching a file. Every reader is bounded (``readLimit``) and reads
/// through the package's own codec: a planted or damaged record is
/// ``AppGroupError/invalidDeviceState(path:problem:)``, never a crash or a guess.
/// No record is a fresh device: ``DeviceState/unlocked``.
package struct DeviceStateStore: Sendable, Hashable {
    /// The directory under the root that holds every device's own records.
    package static let directoryName = "Devices"
    /// The environment variable naming the device of the calling process.
    package static let environmentKey = "APP_GROUP_KEYCHAIN_DEVICE"
    /// The device a process names when it names none.
    package static let defaultName = "default"
    /// The largest record read (1 MiB; a real one is under 300 bytes): below it the
    /// codec's own limits (size, nesting) refuse what is not a record, with the reason.
    package static let readLimit: Int64 = 1 << 20

    /// The container root, standardized.
    package let rootURL: URL
    /// The device's name (validated by its caller, `KeychainDevice`).
    package let name: String

    package init(root: URL, name: String = DeviceStateStore.defaultName) {
        rootURL = root.standardizedFileURL
        self.name = name
    }

    /// The store of the device this process runs on (`APP_GROUP_CONTAINERS_ROOT`,
    /// `APP_GROUP_KEYCHAIN_DEVICE`).
    package static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> DeviceStateStore {
        let name = environment[environmentKey].flatMap { $0.isEmpty ? nil : $0 } ?? defaultName
        return DeviceStateStore(root: ContainerResolver.root(environment: environment), name: name)
    }

    package var root: ContainerRoot { ContainerRoot(rootURL) }
    /// `<root>/Devices`.
    package var directory: URL { rootURL.appendingPathComponent(Self.directoryName, isDirectory: true) }
    /// The record.
    package var url: URL { directory.appendingPathComponent(name + ".device-state.plist") }

    /// True in a target launched by a device whose root this is: the record is
    /// read-only here.
    package var isReadOnlyHere: Bool {
        DeviceChannel.isConnected && ContainerResolver.root().standardizedFileURL.path == rootURL.path
    }

    /// The device's state; ``DeviceState/unlocked`` when no record exists yet.
    /// - Throws: ``AppGroupError/invalidDeviceState(path:problem:)`` for a record
    ///   that is not one; the file primitives' errors (a link, another user's directory).
    package func read() throws(AppGroupError) -> DeviceState {
        guard let directory = try DirectoryHandle.open(directory, below: root) else { return .unlocked }
        let data: Data?
        do { data = try directory.read(url.lastPathComponent, limit: Self.readLimit)?.data } catch {
            guard case let .fileTooLarge(_, size, limit) = error else { throw error }
            throw .invalidDeviceState(path: url.path, problem: "it is \(size) bytes long, more than the \(limit) read (a record is under 300)")
        }
        guard let data else { return .unlocked }
        return try Self.decode(data, path: url.path)
    }

    /// The state in `data`, a record's bytes.
    package static func decode(_ data: Data, path: String) throws(AppGroupError) -> DeviceState {
        let tree: PropertyListTree
        do { tree = try PropertyListCodec.read(data) } catch {
            throw .invalidDeviceState(path: path, problem: "not a property list (\(data.count) bytes): \(error.message)")
        }
        do { return try PropertyListTreeDecoder().decode(DeviceStateRecord.self, from: tree).state } catch let refusal as DeviceState.Refusal {
            throw .invalidDeviceState(path: path, problem: refusal.description)
        } catch {
            throw .invalidDeviceState(path: path, problem: "it does not hold a device state's values (\(error))")
        }
    }

    /// Changes the state under the record's coordination, for every process at
    /// once: `body` gets the state as it is and may throw to change nothing. The
    /// security generation moves on as ``DeviceState/advanced(to:)`` says.
    /// - Throws: ``AppGroupError/deviceStateChangeRefused(operation:state:problem:)`` in a
    ///   target; what `body` throws; the file primitives' errors.
    @discardableResult
    package func change<T>(_ operation: String, _ body: (inout DeviceState) throws -> T) throws -> T {
        try requireWritable(operation)
        try makeDirectory()
        return try FileCoordinator(timeout: 30).coordinate(writingItemAt: url) { _ in
            try changeCoordinated(body)
        }
    }

    /// ``change(_:_:)`` for a caller already coordinating the record for writing
    /// (the keychain, which changes items under the same coordination).
    package func changeCoordinated<T>(_ body: (inout DeviceState) throws -> T) throws -> T {
        let before = try read()
        var state = before
        let result = try body(&state)
        try write(before.advanced(to: state))
        return result
    }

    /// Refuses, in a target, a change only the device makes.
    package func requireWritable(_ operation: String) throws(AppGroupError) {
        guard isReadOnlyHere else { return }
        throw .deviceStateChangeRefused(operation: operation, state: (try? read().description) ?? "in an unreadable state",
            problem: "a target process cannot change its device's state (on iOS only the system does); change it from the test process (SimulatedDevice.lock(), .unlock(), .reboot()) or with `appgroup device`")
    }

    /// Makes `<root>/Devices` (0700) and the root's coordination tree.
    package func makeDirectory() throws(AppGroupError) {
        defer { CoordinationTree.ensurePrepared(root) }
        if try DirectoryHandle.open(directory, below: root) != nil { return }
        var failure = ""
        do { try DirectoryHandle.makeDirectories(directory) } catch { failure = ": \(error)" }
        guard try DirectoryHandle.open(directory, below: root) != nil else {
            throw .invalidRoot(path: directory.path, problem: "cannot create the device's records directory" + failure)
        }
    }

    /// Removes the record (the device starts afresh, unlocked); for a caller
    /// coordinating it. False when there was none.
    @discardableResult
    package func remove() throws(AppGroupError) -> Bool {
        guard let directory = try DirectoryHandle.open(directory, below: root) else { return false }
        directory.removeTemporaries(of: url.lastPathComponent, holdingWriteLock: true)
        return try directory.remove(url.lastPathComponent)
    }

    private func write(_ state: DeviceState) throws(AppGroupError) {
        let data: Data
        do { data = try PropertyListCodec.write(PropertyListTreeEncoder().encode(DeviceStateRecord(state)), format: .binary) } catch {
            throw .invalidDeviceState(path: url.path, problem: "the state could not be encoded (\(error)); nothing was written")
        }
        guard let directory = try DirectoryHandle.open(directory, below: root) else {
            throw .invalidRoot(path: directory.path, problem: "the device's records directory disappeared during a change; nothing was written, try again")
        }
        directory.removeTemporaries(of: url.lastPathComponent, holdingWriteLock: true)
        try directory.write(data, to: url.lastPathComponent, durable: true)
    }
}
