// A target's process for the sandbox tests: each command does one thing through
// Foundation, as app code would, and prints what Foundation answered, so that a
// test sees what code on the device would see.
//
//   SandboxProbe identity                    Bundle.main and the home, one `key=value` a line
//   SandboxProbe write <path> <text>         Data.write(to:), then `ok` or `error <domain> <code> <errno>`
//   SandboxProbe read <path>                 Data(contentsOf:), then `ok <text>` or the error
//   SandboxProbe create-directory <path>     FileManager.createDirectory
//   SandboxProbe remove <path>               FileManager.removeItem
//   SandboxProbe list <path>                 FileManager.contentsOfDirectory, `entry <name>` lines
//   SandboxProbe write-documents <name> <text>   into FileManager's Documents URL
//   SandboxProbe write-group <group> <relative path> <text>   into containerURL(...) + path
//   SandboxProbe defaults-set <key> <value>  UserDefaults.standard (Foundation's), synchronized
//   SandboxProbe defaults-get <key>
//   SandboxProbe write-temporary <name> <text>   into FileManager.default.temporaryDirectory
//   SandboxProbe open-errno <path>           open(2) for writing: `errno <NAME>` or `ok`
//   SandboxProbe save <path> <text>          as app code saves: on failure, the error on standard error and exit 1
//   SandboxProbe truncate <path> <length>    open(2) for writing and ftruncate(2): `ok` or `errno <NAME>`
//   SandboxProbe fill <path> <byte> <length> pwrite(2) of <length> bytes <byte> from offset 0 (no truncation)
//   SandboxProbe replace <path> <length>     a new file of <length> zero bytes renamed over <path>
//   SandboxProbe crash                       traps (an index out of range), as a crashing target does
//   SandboxProbe metadata-paths <path> attack|own      every metadata call naming <path>: `<call> ok|errno <NAME>`
//   SandboxProbe metadata-descriptors <path> attack|own the same calls on a descriptor opened for reading
//   SandboxProbe metadata-symlink <victim> <link>       the calls through a link of its own to <victim>
//   SandboxProbe metadata-race <own> <victim> <link> <rounds>   links and path buffers swapped under the calls
//   SandboxProbe foundation-metadata <dir>              FileManager.setAttributes, createFile(attributes:), copyItem, atomic writes
//   SandboxProbe supervisors-after <n>                   n sandboxed launches of its own, then how many metadata supervisors remain
//   SandboxProbe presenter-ask <socket> <line> none|read:<dir>|path:<dir>
//                                            a request on a presenting process's socket, with a
//                                            descriptor of <dir> (for reading, or O_PATH): `answer <line>` or `closed`
//   SandboxProbe presenter-impostor <socket> <seconds>  its own listener renamed over <socket>, answering
//                                            every request with a forged error; prints `connection`, `request <line>`
//   SandboxProbe presenter-flood <socket> <bytes> <connections>  a line of <bytes> with no newline, then
//                                            <connections> idle connections held until killed
//   SandboxProbe noop                        nothing (the launch benchmark's target)
//   SandboxProbe launch-twice <path>         a device of its own launches itself twice as a
//                                            target writing <path>; prints each outcome's output
import AppGroupContainer
import AppGroupFoundation
import AppGroupSimulation
import CSandboxProbe
import Foundation

#if canImport(Darwin)
// On Apple's platforms Foundation's stores are the real ones (the machine's
// defaults, its group containers), and there is no Landlock: nothing here to probe.
FileHandle.standardError.write(Data("SandboxProbe runs on Linux only: on Apple's platforms it would use the Mac's real stores\n".utf8))
exit(1)
#else

// Each line is printed whole before the next command (print buffers per line on a pipe only when told).

func report(_ body: () throws -> String) {
    do {
        print(try body())
    } catch let error as NSError {
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? NSError).map { "\($0.domain) \($0.code)" } ?? "none"
        print("error \(error.domain) \(error.code) underlying \(underlying)")
    }
}

func write(_ text: String, to url: URL) {
    report {
        try Data(text.utf8).write(to: url)
        return "ok \(url.path)"
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "identity":
    let manager = FileManager.default
    let lines: [(String, String)] = [
        ("bundleIdentifier", Bundle.main.bundleIdentifier ?? "nil"),
        ("bundleURL", Bundle.main.bundleURL.path),
        ("executableURL", Bundle.main.executableURL?.path ?? "nil"),
        ("CFBundleExecutable", Bundle.main.object(forInfoDictionaryKey: "CFBundleExecutable") as? String ?? "nil"),
        ("CFBundlePackageType", Bundle.main.object(forInfoDictionaryKey: "CFBundlePackageType") as? String ?? "nil"),
        ("NSExtensionPointIdentifier", (Bundle.main.object(forInfoDictionaryKey: "NSExtension") as? [String: Any])?["NSExtensionPointIdentifier"] as? String ?? "nil"),
        ("AppGroup", Bundle.main.object(forInfoDictionaryKey: "AppGroup") as? String ?? "nil"),
        ("infoDictionaryCount", String(Bundle.main.infoDictionary?.count ?? 0)),
        ("processName", ProcessInfo.processInfo.processName),
        ("NSHomeDirectory", NSHomeDirectory()),
        ("homeDirectoryForCurrentUser", manager.homeDirectoryForCurrentUser.path),
        ("documentDirectory", manager.urls(for: .documentDirectory, in: .userDomainMask).first?.path ?? "nil"),
        ("cachesDirectory", manager.urls(for: .cachesDirectory, in: .userDomainMask).first?.path ?? "nil"),
        ("applicationSupportDirectory", manager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?.path ?? "nil"),
        ("temporaryDirectory", manager.temporaryDirectory.path),
        ("NSTemporaryDirectory", NSTemporaryDirectory()),
        ("currentDirectoryPath", manager.currentDirectoryPath),
    ]
    for (key, value) in lines { print("\(key)=\(value)") }
case "write" where arguments.count == 3:
    write(arguments[2], to: URL(fileURLWithPath: arguments[1]))
case "read" where arguments.count == 2:
    report { "ok " + String(decoding: try Data(contentsOf: URL(fileURLWithPath: arguments[1])), as: UTF8.self) }
case "create-directory" where arguments.count == 2:
    report {
        try FileManager.default.createDirectory(atPath: arguments[1], withIntermediateDirectories: true)
        return "ok"
    }
case "remove" where arguments.count == 2:
    report {
        try FileManager.default.removeItem(atPath: arguments[1])
        return "ok"
    }
case "list" where arguments.count == 2:
    report { try FileManager.default.contentsOfDirectory(atPath: arguments[1]).sorted().map { "entry \($0)" }.joined(separator: "\n") + "\nok" }
case "write-documents" where arguments.count == 3:
    let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
    write(arguments[2], to: documents.appendingPathComponent(arguments[1]))
case "write-temporary" where arguments.count == 3:
    write(arguments[2], to: FileManager.default.temporaryDirectory.appendingPathComponent(arguments[1]))
case "write-group" where arguments.count == 4:
    guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: arguments[1]) else {
        print("nil container")
        exit(0)
    }
    write(arguments[3], to: container.appendingPathComponent(arguments[2]))
case "defaults-set" where arguments.count == 3:
    UserDefaults.standard.set(arguments[2], forKey: arguments[1])
    print(UserDefaults.standard.synchronize() ? "ok" : "not synchronized")
case "defaults-get" where arguments.count == 2:
    print("value " + (UserDefaults.standard.string(forKey: arguments[1]) ?? "nil"))
case "open-errno" where arguments.count == 2:
    let fd = open(arguments[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    if fd >= 0 {
        close(fd)
        print("ok")
    } else {
        print("errno " + (Errno.current.name ?? String(errno)))
    }
case "save" where arguments.count == 3:
    do {
        try Data(arguments[2].utf8).write(to: URL(fileURLWithPath: arguments[1]), options: .atomic)
        print("saved")
    } catch {
        FileHandle.standardError.write(Data("could not save \(arguments[1]): \(error.localizedDescription)\n".utf8))
        exit(1)
    }
case "truncate" where arguments.count == 3:
    let fd = open(arguments[1], O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
    if fd < 0 || ftruncate(fd, off_t(arguments[2]) ?? 0) != 0 {
        print("errno " + (Errno.current.name ?? String(errno)))
    } else {
        print("ok")
    }
    if fd >= 0 { close(fd) }
case "fill" where arguments.count == 4:
    let bytes = [UInt8](repeating: UInt8(arguments[2]) ?? 0xFF, count: Int(arguments[3]) ?? 0)
    let fd = open(arguments[1], O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
    if fd < 0 || bytes.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) != bytes.count {
        print("errno " + (Errno.current.name ?? String(errno)))
    } else {
        print("ok")
    }
    if fd >= 0 { close(fd) }
case "replace" where arguments.count == 3:
    let temporary = arguments[1] + ".replacing"
    report {
        try Data(count: Int(arguments[2]) ?? 0).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, arguments[1]) == 0 else { return "errno " + (Errno.current.name ?? String(errno)) }
        return "ok"
    }
case "crash":
    let empty: [Int] = []
    print(empty[arguments.count])
case "metadata-paths" where arguments.count == 3:
    // <path> attack|own: every metadata call naming the path; `own` keeps the owner.
    let owner = arguments[2] == "own" ? currentOwner(arguments[1]) : (Attack.owner, Attack.group)
    for line in pathCalls(arguments[1], owner: owner) { print(line) }
case "metadata-descriptors" where arguments.count == 3:
    let owner = arguments[2] == "own" ? currentOwner(arguments[1]) : (Attack.owner, Attack.group)
    for line in descriptorCalls(arguments[1], owner: owner) { print(line) }
case "metadata-symlink" where arguments.count == 3:
    // <victim> <link>: a link of the target's own to the victim, then every call on it.
    unlink(arguments[2])
    guard symlink(arguments[1], arguments[2]) == 0 else { print("symlink errno \(Errno.current.name ?? String(errno))"); exit(0) }
    for line in pathCalls(arguments[2], owner: (Attack.owner, Attack.group)) { print(line) }
case "metadata-race" where arguments.count == 5:
    // <own file> <victim> <link> <rounds>
    for line in race(own: arguments[1], victim: arguments[2], link: arguments[3], rounds: Int(arguments[4]) ?? 100) { print(line) }
case "foundation-metadata" where arguments.count == 2:
    // <directory of its own>: what app code does with metadata through Foundation.
    let manager = FileManager.default
    let directory = URL(fileURLWithPath: arguments[1])
    let file = directory.appendingPathComponent("attributes.txt")
    report {
        try Data("x".utf8).write(to: file, options: .atomic)
        return "atomic-write ok"
    }
    report {
        try manager.setAttributes([.posixPermissions: 0o600, .modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: file.path)
        let attributes = try manager.attributesOfItem(atPath: file.path)
        return "setAttributes ok \((attributes[.posixPermissions] as? Int).map { String($0, radix: 8) } ?? "?") "
            + "\(Int((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0))"
    }
    report {
        let created = directory.appendingPathComponent("created.txt")
        guard manager.createFile(atPath: created.path, contents: Data("y".utf8), attributes: [.posixPermissions: 0o640]) else { return "createFile failed" }
        let mode = (try manager.attributesOfItem(atPath: created.path)[.posixPermissions] as? Int) ?? 0
        return "createFile ok \(String(mode, radix: 8))"
    }
    report {
        let copy = directory.appendingPathComponent("copy.txt")
        try? manager.removeItem(at: copy)
        try manager.copyItem(at: file, to: copy)
        let mode = (try manager.attributesOfItem(atPath: copy.path)[.posixPermissions] as? Int) ?? 0
        return "copyItem ok \(String(mode, radix: 8))"
    }
    report {
        try Data("z".utf8).write(to: file, options: .atomic)
        let mode = (try manager.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) ?? 0
        return "atomic-rewrite ok \(String(mode, radix: 8))"
    }
case "supervisors-after" where arguments.count == 2:
    // <launches>: a device of its own launches itself sandboxed that many times, each
    // changing a file of its own (a round trip to the metadata supervisor), then
    // waits (10 s at most) until no supervisor thread is left in this process.
    let device = try SimulatedDevice(name: "SandboxProbe")
    let target = try SimulatedTarget(name: "Probe", kind: .app, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.probe")
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let file = try target.dataContainer(on: device).documents.appendingPathComponent("mine.txt")
    try Data("x".utf8).write(to: file)
    for _ in 0..<(Int(arguments[1]) ?? 1) {
        let outcome = try device.spawn(me, ["metadata-paths", file.path, "own"], as: target)
        guard outcome.outputLines.first == "chmod ok" else { print("launch \(outcome)"); break }
    }
    func supervisors() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix("agc-metadata") == true }.count
    }
    let deadline = Date().addingTimeInterval(10)
    while supervisors() > 0 && Date() < deadline { usleep(10_000) }
    print("supervisors \(supervisors())")
    device.remove()
case "presenter-ask" where arguments.count == 4:
    PresenterAttacks.ask(socket: arguments[1], line: arguments[2], proof: arguments[3])
case "presenter-impostor" where arguments.count == 3:
    PresenterAttacks.impostor(socket: arguments[1], seconds: Double(arguments[2]) ?? 10)
case "presenter-flood" where arguments.count == 4:
    PresenterAttacks.flood(socket: arguments[1], bytes: Int(arguments[2]) ?? 0, connections: Int(arguments[3]) ?? 0)
case "noop":
    break
case "launch-twice" where arguments.count == 2:
    let device = try SimulatedDevice(name: "SandboxProbe")
    let target = try SimulatedTarget(name: "Probe", kind: .app, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.probe")
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    for _ in 0..<2 {
        let outcome = try device.spawn(me, ["write", arguments[1], "x"], as: target)
        print("outcome " + outcome.outputLines.joined(separator: " | "))
    }
    device.remove()
default:
    FileHandle.standardError.write(Data("usage: SandboxProbe identity | write <path> <text> | read <path> | ... (see main.swift)\n".utf8))
    exit(64)
}
#endif
