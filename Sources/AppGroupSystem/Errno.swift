#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An `errno` value: what a failed system call said, typed and named.
///
/// Errors that carry one (``AppGroupError/systemCall(operation:path:errno:)``,
/// ``AppGroupError/notDurable(path:operation:errno:)``) hold this rather than a
/// bare `Int32`, so a caller matches a name:
///
/// ```swift
/// catch AppGroupError.systemCall(_, _, .ENOSPC) { /* the disk is full */ }
/// ```
///
/// The static members are the codes the package meets; any other value still
/// works through ``init(rawValue:)``. Values differ between platforms (`ELOOP`
/// is 40 on Linux, 62 on Darwin): compare with the members, not with numbers.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The C value.
    public let rawValue: Int32

    /// The code `rawValue`, named or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, as the last failed call left it.
    public static var current: Errno { Errno(rawValue: errno) }

    /// The C name (`ENOENT`), nil for a code this type does not name.
    public var name: String? { Self.names[rawValue] }

    /// The system's text for the code (strerror(3)): "No such file or directory".
    public var message: String { String(cString: strerror(rawValue)) }

    /// "No such file or directory (ENOENT, errno 2)": the text, the name and the number.
    public var description: String {
        "\(message) (\(name.map { $0 + ", " } ?? "")errno \(rawValue))"
    }

    // EWOULDBLOCK is left out: it is EAGAIN's value, and EAGAIN names it.
    private static let names: [Int32: String] = {
        var table: [Int32: String] = [:]
        for (code, name) in [
            (cEPERM, "EPERM"),
            (cENOENT, "ENOENT"),
            (cESRCH, "ESRCH"),
            (cEINTR, "EINTR"),
            (cEIO, "EIO"),
            (cEBADF, "EBADF"),
            (cEAGAIN, "EAGAIN"),
            (cENOMEM, "ENOMEM"),
            (cEACCES, "EACCES"),
            (cEBUSY, "EBUSY"),
            (cEEXIST, "EEXIST"),
            (cEXDEV, "EXDEV"),
            (cENOTDIR, "ENOTDIR"),
            (cEISDIR, "EISDIR"),
            (cEINVAL, "EINVAL"),
            (cENFILE, "ENFILE"),
            (cEMFILE, "EMFILE"),
            (cEFBIG, "EFBIG"),
            (cENOSPC, "ENOSPC"),
            (cEROFS, "EROFS"),
            (cENAMETOOLONG, "ENAMETOOLONG"),
            (cENOLCK, "ENOLCK"),
            (cENOSYS, "ENOSYS"),
            (cENOTEMPTY, "ENOTEMPTY"),
            (cELOOP, "ELOOP"),
            (cEDQUOT, "EDQUOT"),
        ] { table[code] = name }
        return table
    }()
}

extension Errno {
    /// `EPERM`: the operation is not permitted.
    public static var EPERM: Errno { Errno(rawValue: cEPERM) }
    /// `ENOENT`: no such file or directory.
    public static var ENOENT: Errno { Errno(rawValue: cENOENT) }
    /// `ESRCH`: no such process.
    public static var ESRCH: Errno { Errno(rawValue: cESRCH) }
    /// `EINTR`: a signal interrupted the call.
    public static var EINTR: Errno { Errno(rawValue: cEINTR) }
    /// `EIO`: the device reported an input/output error.
    public static var EIO: Errno { Errno(rawValue: cEIO) }
    /// `EBADF`: the descriptor is not open.
    public static var EBADF: Errno { Errno(rawValue: cEBADF) }
    /// `EAGAIN`: the resource is busy; try again (also `EWOULDBLOCK`).
    public static var EAGAIN: Errno { Errno(rawValue: cEAGAIN) }
    /// `ENOMEM`: out of memory.
    public static var ENOMEM: Errno { Errno(rawValue: cENOMEM) }
    /// `EACCES`: permission denied.
    public static var EACCES: Errno { Errno(rawValue: cEACCES) }
    /// `EBUSY`: the device or resource is busy.
    public static var EBUSY: Errno { Errno(rawValue: cEBUSY) }
    /// `EEXIST`: the name is taken.
    public static var EEXIST: Errno { Errno(rawValue: cEEXIST) }
    /// `EXDEV`: the two names are on different file systems.
    public static var EXDEV: Errno { Errno(rawValue: cEXDEV) }
    /// `ENOTDIR`: a component of the path is not a directory.
    public static var ENOTDIR: Errno { Errno(rawValue: cENOTDIR) }
    /// `EISDIR`: the name is a directory.
    public static var EISDIR: Errno { Errno(rawValue: cEISDIR) }
    /// `EINVAL`: an invalid argument.
    public static var EINVAL: Errno { Errno(rawValue: cEINVAL) }
    /// `ENFILE`: the system's table of open files is full.
    public static var ENFILE: Errno { Errno(rawValue: cENFILE) }
    /// `EMFILE`: the process has too many open descriptors.
    public static var EMFILE: Errno { Errno(rawValue: cEMFILE) }
    /// `EFBIG`: the file is too large.
    public static var EFBIG: Errno { Errno(rawValue: cEFBIG) }
    /// `ENOSPC`: no space left on the device.
    public static var ENOSPC: Errno { Errno(rawValue: cENOSPC) }
    /// `EROFS`: the file system is read-only.
    public static var EROFS: Errno { Errno(rawValue: cEROFS) }
    /// `ENAMETOOLONG`: a name or the path is too long.
    public static var ENAMETOOLONG: Errno { Errno(rawValue: cENAMETOOLONG) }
    /// `ENOLCK`: no locks available.
    public static var ENOLCK: Errno { Errno(rawValue: cENOLCK) }
    /// `ENOSYS`: the call is not implemented.
    public static var ENOSYS: Errno { Errno(rawValue: cENOSYS) }
    /// `ENOTEMPTY`: the directory is not empty.
    public static var ENOTEMPTY: Errno { Errno(rawValue: cENOTEMPTY) }
    /// `ELOOP`: a symbolic link was met where none is followed, or too many links.
    public static var ELOOP: Errno { Errno(rawValue: cELOOP) }
    /// `EDQUOT`: the user's disk quota is exhausted.
    public static var EDQUOT: Errno { Errno(rawValue: cEDQUOT) }
    /// `EWOULDBLOCK`: the call would block (the same value as ``EAGAIN`` on Linux and Darwin).
    public static var EWOULDBLOCK: Errno { Errno(rawValue: cEWOULDBLOCK) }
}

// libc's constants under names that the members above do not shadow.
private var cEPERM: Int32 { EPERM }
private var cENOENT: Int32 { ENOENT }
private var cESRCH: Int32 { ESRCH }
private var cEINTR: Int32 { EINTR }
private var cEIO: Int32 { EIO }
private var cEBADF: Int32 { EBADF }
private var cEAGAIN: Int32 { EAGAIN }
private var cENOMEM: Int32 { ENOMEM }
private var cEACCES: Int32 { EACCES }
private var cEBUSY: Int32 { EBUSY }
private var cEEXIST: Int32 { EEXIST }
private var cEXDEV: Int32 { EXDEV }
private var cENOTDIR: Int32 { ENOTDIR }
private var cEISDIR: Int32 { EISDIR }
private var cEINVAL: Int32 { EINVAL }
private var cENFILE: Int32 { ENFILE }
private var cEMFILE: Int32 { EMFILE }
private var cEFBIG: Int32 { EFBIG }
private var cENOSPC: Int32 { ENOSPC }
private var cEROFS: Int32 { EROFS }
private var cENAMETOOLONG: Int32 { ENAMETOOLONG }
private var cENOLCK: Int32 { ENOLCK }
private var cENOSYS: Int32 { ENOSYS }
private var cENOTEMPTY: Int32 { ENOTEMPTY }
private var cELOOP: Int32 { ELOOP }
private var cEDQUOT: Int32 { EDQUOT }
private var cEWOULDBLOCK: Int32 { EWOULDBLOCK }
