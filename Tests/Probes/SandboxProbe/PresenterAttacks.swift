#if !canImport(Darwin)
import CSandboxProbe
import Foundation

/// What a hostile target does to a presenting process's socket in
/// `.coordination/presenters` (the presenter sockets' attack tests).
enum PresenterAttacks {
    /// One line on standard output, written at once (a test waits for it).
    static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

    static func name(_ code: Int) -> String { String(cString: csp_errno_name(Int32(-code))) }

    /// `presenter-ask <socket> <line> none|read:<dir>|path:<dir>`: connects, sends
    /// `line` with a descriptor of `dir` opened for reading or with O_PATH (or
    /// none), and prints what came back: `answer <line>`, `closed`, or the errno
    /// of the step that failed (`open errno <NAME>`, `connect errno <NAME>`).
    static func ask(socket: String, line: String, proof: String) {
        var passed: Int32 = -1
        if proof != "none", let colon = proof.firstIndex(of: ":") {
            let opened = csp_open_directory(String(proof[proof.index(after: colon)...]), proof.hasPrefix("path:") ? 1 : 0)
            guard opened >= 0 else { say("open errno \(name(Int(opened)))"); return }
            passed = opened
        }
        let fd = csp_connect(socket)
        guard fd >= 0 else { say("connect errno \(name(Int(fd)))"); return }
        let bytes = Array((line + "\n").utf8)
        let sent = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { csp_send(fd, $0.baseAddress, $0.count, passed) }
        }
        guard sent >= 0 else { say("send errno \(name(sent))"); return }
        var buffer = [CChar](repeating: 0, count: 4096)
        let got = csp_receive(fd, &buffer, buffer.count, 20_000)
        if got > 0 {
            let text = String(decoding: buffer.prefix(got).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            say("answer " + text.trimmingCharacters(in: .newlines))
        } else if got == 0 {
            say("closed")
        } else {
            say("receive errno \(name(got))")
        }
    }

    /// `presenter-impostor <socket> <seconds>`: listens at a name of its own beside
    /// `socket`, renames it over `socket`, prints `listening`, then for `seconds`
    /// answers every request with a forged error; prints `connection` for each
    /// connection and `request <line>` for each line that came.
    static func impostor(socket: String, seconds: Double) {
        let mine = socket + ".impostor"
        unlink(mine)
        let listener = csp_listen_at(mine)
        guard listener >= 0 else { say("listen errno \(name(Int(listener)))"); return }
        guard rename(mine, socket) == 0 else { say("rename errno \(name(-Int(errno)))"); return }
        say("listening")
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let fd = csp_accept(listener, 200)
            guard fd >= 0 else { continue }
            say("connection")
            var buffer = [CChar](repeating: 0, count: 4096)
            let got = csp_receive(fd, &buffer, buffer.count, 2_000)
            if got > 0 {
                let text = String(decoding: buffer.prefix(got).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                say("request " + text.trimmingCharacters(in: .newlines))
                let forged = Array("error NSCocoaErrorDomain 3072 forged%20by%20the%20impostor\n".utf8)
                _ = forged.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { csp_send(fd, $0.baseAddress, $0.count, -1) }
                }
            }
            close(fd)
        }
        say("done")
    }

    /// `presenter-flood <socket> <bytes> <connections>`: one connection sending
    /// `bytes` bytes with no newline (prints `sent <n> <how it ended>`), then
    /// `connections` connections that send nothing and stay open (prints `opened
    /// <n>`, then `holding`), until killed.
    static func flood(socket: String, bytes: Int, connections: Int) {
        let fd = csp_connect(socket)
        guard fd >= 0 else { say("connect errno \(name(Int(fd)))"); return }
        let chunk = [CChar](repeating: 0x61, count: 64 * 1024)
        var sent = 0
        var ending = "all sent"
        while sent < bytes {
            let count = chunk.withUnsafeBufferPointer { csp_send(fd, $0.baseAddress, min($0.count, bytes - sent), -1) }
            if count < 0 { ending = "errno \(name(count))"; break }
            sent += count
        }
        say("sent \(sent) \(ending)")
        var open: [Int32] = []
        for _ in 0..<connections {
            let connection = csp_connect(socket)
            if connection >= 0 { open.append(connection) }
        }
        say("opened \(open.count)")
        say("holding")
        while true { sleep(60) }
    }
}
#endif
