// What a hostile share extension does to the share sheet, for the hostile
// share-sheet tests: it answers with what the device must refuse, or tampers with
// the folders the device works in. Each mode is what any code in an extension's
// sandbox may do; the device must come through each with a typed report.
import AppGroupContainer
import AppGroupFoundation
#if canImport(Glibc)
import Glibc
#endif

enum HostileReplies {
    /// The request folder the share sheet made (the extension's own `tmp`).
    static var requestFolder: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment[ExtensionWire.environmentKey] ?? "/nonexistent", isDirectory: true)
    }

    /// Runs `mode` (`swap-input`, `swap-request`, `return`, `flood-reply`, `litter`)
    /// with `arguments`; false when `mode` is not one of these.
    static func run(_ mode: String, _ arguments: [String]) -> Bool {
        do {
            switch mode {
            case "swap-input": try swapInput(for: arguments[0])
            case "swap-request": try swapRequest(for: arguments[0])
            case "return": try returnItem(arguments[0], arguments.dropFirst().first)
            case "flood-reply": try floodReply(arguments[0])
            case "litter": try litter(pointingAt: arguments[0])
            default: return false
            }
        } catch {
            report("hostile \(mode) failed: \(error)")
            exit(3)
        }
        return true
    }

    /// Input replaced by a link to `target` (a folder outside every sandbox); then
    /// the request is completed as usual.
    static func swapInput(for target: String) throws {
        let input = requestFolder.appendingPathComponent("Input")
        try FileManager.default.moveItem(at: input, to: requestFolder.appendingPathComponent("Input.moved"))
        try FileManager.default.createSymbolicLink(atPath: input.path, withDestinationPath: target)
        report("swapped Input for a link to \(target)")
        writeReply(names: [])
    }

    /// The whole request folder moved away and a link to `target` (a folder holding
    /// an `Input` of its own, outside every sandbox) put in its place; the
    /// extension then ends without a reply.
    static func swapRequest(for target: String) throws {
        let folder = requestFolder
        try FileManager.default.moveItem(at: folder, to: folder.deletingLastPathComponent().appendingPathComponent("moved-" + folder.lastPathComponent))
        try FileManager.default.createSymbolicLink(atPath: folder.path, withDestinationPath: target)
        report("swapped the request folder for a link to \(target)")
        exit(0)
    }

    /// Completes the request naming `kind` as its returned file:
    /// - `name <text>`: `text` itself (an absolute path, `../...`, another target's file);
    /// - `fifo`, `symlink <target>`, `hardlink`, `huge <bytes>` (sparse), `socket`:
    ///   such a file made in Output.
    static func returnItem(_ kind: String, _ argument: String?) throws {
        let output = requestFolder.appendingPathComponent("Output/item", isDirectory: true)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let file = output.appendingPathComponent("returned.bin")
        switch kind {
        case "name":
            writeReply(names: [argument ?? ""])
        case "fifo":
            guard mkfifo(file.path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            writeReply(names: ["item/returned.bin"])
        case "symlink":
            try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: argument ?? "/dev/zero")
            writeReply(names: ["item/returned.bin"])
        case "hardlink":
            try Data("mine".utf8).write(to: output.appendingPathComponent("original.txt"))
            try FileManager.default.linkItem(at: output.appendingPathComponent("original.txt"), to: file)
            writeReply(names: ["item/returned.bin"])
        case "huge":
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(argument ?? "") ?? (1 << 31))
            try handle.close()
            writeReply(names: ["item/returned.bin"])
        case "socket":
            // Bound by a relative name: the full path is longer than sun_path holds.
            guard chdir(output.path) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            try bindSocket(at: file.lastPathComponent)
            writeReply(names: ["item/returned.bin"])
        default:
            throw POSIXError(.EINVAL)
        }
    }

    /// A reply the device must not read whole: `size` (a sparse reply past the
    /// reply limit, argument: bytes), `count` (argument: representations).
    static func floodReply(_ kind: String) throws {
        let reply = requestFolder.appendingPathComponent(ExtensionWire.replyName)
        switch kind {
        case "size":
            _ = FileManager.default.createFile(atPath: reply.path, contents: nil)
            let handle = try FileHandle(forWritingTo: reply)
            try handle.truncate(atOffset: UInt64(32 << 20))
            try handle.close()
        case "count":
            let item = NSExtensionItem()
            item.attachments = (0..<10_001).map { _ in NSItemProvider(item: "x" as NSString, typeIdentifier: "public.plain-text") }
            try ExtensionWire.write(ExtensionWire.Reply(ending: "completed", items: try ExtensionWire.encode([item], copyingFilesInto: requestFolder)), to: reply)
        default:
            throw POSIXError(.EINVAL)
        }
        report("flooded the reply (\(kind))")
        exit(0)
    }

    /// Leaves in its own container what a removal by path stumbles on: a link to
    /// `target` (outside every sandbox), a folder it took every permission from,
    /// and a tree nested past PATH_MAX; then ends without a reply.
    static func litter(pointingAt target: String) throws {
        let home = requestFolder.deletingLastPathComponent()
        try FileManager.default.createSymbolicLink(atPath: home.appendingPathComponent("outside-link").path, withDestinationPath: target)
        let locked = home.appendingPathComponent("locked", isDirectory: true)
        try FileManager.default.createDirectory(at: locked.appendingPathComponent("inner"), withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: locked.appendingPathComponent("inner/file"))
        chmod(locked.appendingPathComponent("inner").path, 0)
        chmod(locked.path, 0o500)
        // 120 levels of 60-character names: about 7,300 characters, past PATH_MAX.
        guard chdir(home.path) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let name = String(repeating: "d", count: 60)
        for _ in 0..<120 {
            guard mkdir(name, 0o700) == 0, chdir(name) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }
        _ = FileManager.default.createFile(atPath: "deepest", contents: Data("deep".utf8))
        report("littered \(home.path)")
        exit(0)
    }

    /// A reply completing the request with one file representation per name.
    static func writeReply(names: [String]) {
        let item = NSExtensionItem()
        item.attachments = names.map { _ in NSItemProvider(contentsOf: URL(fileURLWithPath: "/returned.bin"))! }
        var remaining = names[...]
        do {
            let wire = try ExtensionWire.encode([item]) { _, _ in remaining.popFirst() ?? "" }
            try ExtensionWire.write(ExtensionWire.Reply(ending: "completed", items: wire), to: requestFolder.appendingPathComponent(ExtensionWire.replyName))
        } catch {
            report("the reply could not be written: \(error)")
            exit(3)
        }
        report("replied with \(names)")
        exit(0)
    }

    static func bindSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(107)) + [0]
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }
}
