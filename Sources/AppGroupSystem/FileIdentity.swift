#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's identity: device, inode, size and change time, from one stat.
///
/// An atomic save always changes the inode, so equal identities mean unchanged
/// content, as long as the older inode is still alive (an inode number freed by a
/// replaced file may be given to the next one: keep the old file open, as
/// `AtomicFile.Pin` does, to rule that out).
package struct FileIdentity: Hashable, Sendable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    package let changeSeconds: Int
    package let changeNanoseconds: Int

    /// The identity `st` describes.
    package init(_ st: SystemCalls.FileStatus) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        #if canImport(Darwin)
        changeSeconds = Int(st.st_ctimespec.tv_sec)
        changeNanoseconds = Int(st.st_ctimespec.tv_nsec)
        #else
        changeSeconds = Int(st.st_ctim.tv_sec)
        changeNanoseconds = Int(st.st_ctim.tv_nsec)
        #endif
    }

    /// The same file (device and inode), whatever its size or change time.
    package func isSameFile(as other: FileIdentity) -> Bool { device == other.device && inode == other.inode }
}

/// A file's device, inode and size, from a stat that asked for no timestamps
/// (``SystemCalls/fstatUntimed(_:path:)``): what a writer checks of a file it
/// then writes in place, without making that write dirty the inode.
package struct InodeIdentity: Hashable, Sendable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64

    /// The identity `st` describes (its times are not read).
    package init(_ st: SystemCalls.FileStatus) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
    }

    /// The same file (device and inode), whatever its size.
    package func isSameFile(as other: InodeIdentity) -> Bool { device == other.device && inode == other.inode }
}

extension SystemCalls {
    /// The modification time of `st`, in seconds since 1970.
    package static func modified(_ st: FileStatus) -> Double {
        #if canImport(Darwin)
        Double(st.st_mtimespec.tv_sec) + Double(st.st_mtimespec.tv_nsec) / 1e9
        #else
        Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        #endif
    }
}
