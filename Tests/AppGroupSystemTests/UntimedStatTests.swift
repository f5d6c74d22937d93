import AppGroupSystem
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The stats that leave the timestamps out (`SystemCalls.fstatUntimed`,
/// `lstatUntimed(at:)`): the same answers as fstat(2) and fstatat(2) apart from the
/// times, with fstatat standing in where statx is missing or refused. What they
/// save (a write after them keeps a coarse time on a kernel with multigrain
/// timestamps) is a matter of speed, measured by the benchmarks' case 5: the kernel
/// shares its timestamp floor between all files, so a test cannot see it reliably.
@Suite("Stats without timestamps", .tags(.faults))
struct UntimedStatTests {
    /// What both stats must agree on.
    static func fields(_ st: stat) -> [Int64] {
        [Int64(st.st_dev), Int64(st.st_ino), Int64(st.st_mode), Int64(st.st_nlink), Int64(st.st_uid), Int64(st.st_gid),
         Int64(st.st_size), Int64(st.st_blocks)]
    }

    static func timed(_ directory: Int32, _ name: String) throws -> stat? {
        var st = stat()
        if fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 { return st }
        if errno == ENOENT { return nil }
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    /// A regular file, a directory, a FIFO, a symbolic link (not followed) and a
    /// name that is not there, in `directory`.
    static func plant(in directory: URL) throws -> [String] {
        try Data(repeating: 7, count: 5000).write(to: directory.appendingPathComponent("file"))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("dir"), withIntermediateDirectories: false)
        #expect(mkfifo(directory.appendingPathComponent("fifo").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("link").path, withDestinationPath: "file")
        return ["file", "dir", "fifo", "link", "missing"]
    }

    @Test("each kind of entry: what fstatat says, times aside (zero), and nil where nothing is there")
    func sameAnswers() throws {
        try withTemporaryDirectory { directory in
            let names = try Self.plant(in: directory)
            let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(fd) }
            for name in names {
                let expected = try Self.timed(fd, name)
                let got = try SystemCalls.lstatUntimed(at: fd, name, path: directory.path + "/" + name)
                #expect(got.map(Self.fields) == expected.map(Self.fields), "\(name)")
                if let got {
                    #expect(got.st_mtim.tv_sec == 0 && got.st_ctim.tv_sec == 0 && got.st_atim.tv_sec == 0, "\(name): no times read")
                }
            }
            let file = open(directory.appendingPathComponent("file").path, O_RDONLY | O_CLOEXEC)
            defer { close(file) }
            var st = stat()
            #expect(fstat(file, &st) == 0)
            #expect(Self.fields(try SystemCalls.fstatUntimed(file, path: "file")) == Self.fields(st))
            #expect(throws: SystemError.self) { try SystemCalls.fstatUntimed(-1, path: "closed") }
        }
    }

    @Test("statx missing (ENOSYS) or refused by a filter (EPERM): fstatat and fstat answer instead, the same", arguments: [Errno.ENOSYS, .EPERM])
    func fallback(code: Errno) throws {
        try withTemporaryDirectory { directory in
            let names = try Self.plant(in: directory)
            let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(fd) }
            let prefix = directory.path
            let plan: FaultInjection.Plan = { call, path in call == .statx && path.hasPrefix(prefix) ? code : nil }
            for name in names {
                let expected = try Self.timed(fd, name)
                let (calls, got) = try FaultInjection.trace {
                    try FaultInjection.with(plan) { try SystemCalls.lstatUntimed(at: fd, name, path: prefix + "/" + name) }
                }
                #expect(got.map(Self.fields) == expected.map(Self.fields), "\(name)")
                #expect(calls.map(\.call) == [.statx, .fstatat] && calls[0].injected == code && calls[1].injected == nil,
                        "\(name): statx refused, then fstatat: \(calls)")
            }
            let file = open(directory.appendingPathComponent("file").path, O_RDONLY | O_CLOEXEC)
            defer { close(file) }
            let (calls, got) = try FaultInjection.trace {
                try FaultInjection.with(plan) { try SystemCalls.fstatUntimed(file, path: prefix + "/file") }
            }
            #expect(got.st_size == 5000 && calls.map(\.call) == [.statx, .fstat], "\(calls)")
        }
    }

    @Test("any other error from statx is thrown as it is, not hidden by a second call")
    func otherErrors() throws {
        try withTemporaryDirectory { directory in
            _ = try Self.plant(in: directory)
            let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(fd) }
            let path = directory.path + "/file"
            let plan: FaultInjection.Plan = { call, _ in call == .statx ? .EACCES : nil }
            let (calls, _) = FaultInjection.trace {
                #expect(throws: SystemError.call(operation: "fstatat", path: path, errno: .EACCES)) {
                    try FaultInjection.with(plan) { try SystemCalls.lstatUntimed(at: fd, "file", path: path) }
                }
            }
            #expect(calls.map(\.call) == [.statx], "\(calls)")
        }
    }
}
