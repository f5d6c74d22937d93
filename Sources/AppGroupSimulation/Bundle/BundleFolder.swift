import AppGroupContainer
import AppGroupSystem
import Foundation

/// A target's bundle on a device: a folder `<Name>.app` (or `.appex`) holding
/// the target's Info.plist and its executable, as iOS installs one. The host
/// executable a test runs as the target is linked into it under the bundle's
/// executable name, so that Foundation, which finds `Bundle.main` from the
/// running file (`/proc/self/exe`), finds this folder and its Info.plist:
/// `Bundle.main.bundleIdentifier`, `infoDictionary` and
/// `object(forInfoDictionaryKey:)` answer as the target.
///
/// Layout: `<device>/Bundles/<bundle id>/<host executable>/<Name>.app/`, one per
/// host executable (a target may run several). A hard link costs no copy; across
/// file systems the executable is copied once, and again only when it changes.
///
/// A bundle is made once, completely, before anything may run it: one launch in
/// this process makes it while the others wait; the executable is written under a
/// temporary name, synced and closed (while no spawn of this process could inherit
/// its descriptor), and only then given its name in one `rename`. A launch in
/// another process racing this one makes its own complete copy and renames it in
/// the same way, so the name never leads to a file being written.
enum BundleFolder {
    static let directoryName = "Bundles"

    /// Launches of one bundle in this process wait for the first to finish making
    /// it, rather than each writing its own copy. Striped by the bundle's path, so
    /// that a copy made for one device holds up no launch on another.
    private static let making: [Locked<Void>] = (0..<64).map { _ in Locked(()) }

    /// The bundle of `target` for `executable` on the device at `deviceDirectory`,
    /// made or brought up to date; returns the bundle and its executable.
    /// - Parameter copying: copy the executable even where a hard link would do
    ///   (what a device on another file system than the build does).
    /// - Throws: `AppGroupError.systemCall` (execve, ENOENT or EACCES) naming an
    ///   executable that is missing or not executable, before anything is made.
    static func install(_ target: SimulatedTarget, executable: URL, deviceDirectory: URL,
                        copying: Bool = false) throws -> (bundle: URL, executable: URL) {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            let missing = !FileManager.default.fileExists(atPath: executable.path)
            throw SimulationError.container(AppGroupError.systemCall(operation: "execve", path: executable.path, errno: Errno(rawValue: missing ? ENOENT : EACCES)))
        }
        var hasher = Hasher()
        hasher.combine(deviceDirectory.path)
        hasher.combine(target.bundleIdentifier)
        hasher.combine(executable.lastPathComponent)
        let stripe = making[Int(UInt(bitPattern: hasher.finalize()) % UInt(making.count))]
        return try stripe.withLock { _ in try make(target, executable: executable, deviceDirectory: deviceDirectory, copying: copying) }
    }

    private static func make(_ target: SimulatedTarget, executable: URL, deviceDirectory: URL,
                             copying: Bool) throws -> (bundle: URL, executable: URL) {
        let info = target.infoPlistData
        let isExtension = InfoPlistBuilder.extensionPoint(of: target.kind) != nil
        let name = target.executableName
        let bundle = deviceDirectory.appendingPathComponent(directoryName, isDirectory: true)
            .appendingPathComponent(target.bundleIdentifier, isDirectory: true)
            .appendingPathComponent(executable.lastPathComponent, isDirectory: true)
            .appendingPathComponent(name + (isExtension ? ".appex" : ".app"), isDirectory: true)
        let installed = bundle.appendingPathComponent(name)
        try RaceFreeDirectory.make(bundle, intermediates: true, mode: 0o755)
        let plist = bundle.appendingPathComponent("Info.plist")
        if (try? Data(contentsOf: plist)) != info {
            try AtomicFile.write(info, to: plist, below: nil) // the device directory, outside its container root
        }
        let source = executable.resolvingSymlinksInPath().path
        if let want = SandboxSystemCalls.identity(of: source), let have = SandboxSystemCalls.identity(of: installed.path),
           want == have {
            return (bundle, installed) // already the same file
        }
        let staging = bundle.appendingPathComponent(".\(name).\(UUID().uuidString)")
        do {
            if copying { throw Errno(rawValue: EXDEV) }
            try SandboxSystemCalls.hardLink(source, staging.path)
        } catch {
            // Another file system (EXDEV), or links refused: a copy, made anew when the
            // source changes (checked by size and modification time).
            if Self.sameContentStamp(source, installed.path) { return (bundle, installed) }
            do {
                try SandboxSystemCalls.copyExecutable(source, to: staging.path)
            } catch {
                throw SimulationError.container(AppGroupError.systemCall(operation: "copy", path: staging.path, errno: error))
            }
        }
        do {
            try SandboxSystemCalls.replace(installed.path, with: staging.path)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw SimulationError.container(AppGroupError.systemCall(operation: "rename", path: installed.path, errno: error))
        }
        return (bundle, installed)
    }

    private static func sameContentStamp(_ a: String, _ b: String) -> Bool {
        let manager = FileManager.default
        guard let x = try? manager.attributesOfItem(atPath: a), let y = try? manager.attributesOfItem(atPath: b) else { return false }
        return (x[.size] as? Int) == (y[.size] as? Int)
            && (x[.modificationDate] as? Date).map { date in (y[.modificationDate] as? Date).map { $0 >= date } ?? false } == true
    }
}
