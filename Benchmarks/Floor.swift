#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CAppGroupSys
import Foundation

// The physical floor: the system calls a case cannot avoid, made bare, with no
// library in between. The benchmark (and only it) calls libc directly, on purpose.
enum Floor {
    /// stat(2) of `path`.
    static func stat(_ path: String) {
        _ = bareStat(path)
    }

    /// An open descriptor of a lock file.
    static func openLockFile(_ path: String) -> Int32 {
        open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    }

    /// One OFD lock and unlock (fcntl F_OFD_SETLKW, F_OFD_SETLK F_UNLCK).
    static func lockUnlock(_ fd: Int32) {
        _ = agc_lock(fd, Int32(AGC_LOCK_EXCLUSIVE), 1)
        _ = agc_lock(fd, Int32(AGC_LOCK_UNLOCK), 0)
    }

    /// The system calls the locking protocol requires for one lock and unlock: the
    /// OFD lock, an lstat of the lock path (section 5: the path must still name the
    /// locked inode), an lstat of each place the search for the item's tree looks
    /// at (section 5: the tree must still be the item's), the unlock.
    /// FileCoordinator makes exactly these.
    static func lockCheckUnlock(_ fd: Int32, path: String, places: [String] = []) {
        _ = agc_lock(fd, Int32(AGC_LOCK_EXCLUSIVE), 1)
        _ = bareLstat(path)
        for place in places { _ = bareLstat(place) }
        _ = agc_lock(fd, Int32(AGC_LOCK_UNLOCK), 0)
    }

    /// `<D>/.coordination` for each directory the protocol's search looks at for
    /// `item`: from its own directory up to the first that holds a
    /// `.coordination`, or up to the topmost below `/`.
    static func searchPlaces(for item: String) -> [String] {
        var places: [String] = []
        var directory = (item as NSString).deletingLastPathComponent
        while directory != "/" && !directory.isEmpty {
            let place = directory + "/.coordination"
            places.append(place)
            if bareLstat(place) == 0 { break }
            directory = (directory as NSString).deletingLastPathComponent
        }
        return places
    }

    /// The durable set done with bare calls only, on bytes serialized in advance:
    /// lock, write a temporary file, fsync, rename, fsync the directory, unlock.
    /// Every one of these is the price of a durable atomic save; nothing else is.
    static func durableSave(_ data: Data, lockFD: Int32, directory: String, target: String) {
        _ = agc_lock(lockFD, Int32(AGC_LOCK_EXCLUSIVE), 1)
        defer { _ = agc_lock(lockFD, Int32(AGC_LOCK_UNLOCK), 0) }
        durableReplace(data, directory: directory, target: target)
    }

    /// The package's earlier save path, kept here as a peer (it was once this
    /// benchmark's "floor"): the same calls, with Foundation's
    /// `PropertyListSerialization` serializing the dictionary under the lock.
    static func serializingDurableSave(_ dictionary: [String: Any], lockFD: Int32, directory: String, target: String) {
        _ = agc_lock(lockFD, Int32(AGC_LOCK_EXCLUSIVE), 1)
        defer { _ = agc_lock(lockFD, Int32(AGC_LOCK_UNLOCK), 0) }
        guard let data = try? PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0) else { return }
        durableReplace(data, directory: directory, target: target)
    }

    private static func durableReplace(_ data: Data, directory: String, target: String) {
        let temporary = target + ".floor-tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        data.withUnsafeBytes { raw in _ = write(fd, raw.baseAddress, raw.count) }
        fsync(fd)
        close(fd)
        rename(temporary, target)
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        fsync(dfd)
        close(dfd)
    }

    /// The floor of a read after a change: open, fstat, read the whole file, close.
    /// Returns how many bytes it read into `buffer`, or nil.
    static func readFile(_ path: String, into buffer: inout [UInt8]) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let size = Int(st.st_size)
        if buffer.count < size { buffer = [UInt8](repeating: 0, count: size) }
        var done = 0
        while done < size {
            let n = buffer.withUnsafeMutableBytes { raw in read(fd, raw.baseAddress.map { $0 + done }, raw.count - done) }
            if n <= 0 { break }
            done += n
        }
        return done
    }

    /// A durable publication of a new small file with bare calls, the least a
    /// durable enqueue must do: create a file, write, fsync, close, rename it into
    /// `directory` as `name`, fsync the directory.
    ///
    /// With `counterFD` ("numbered"), as an ordered queue must publish: the rename
    /// happens under an OFD lock on `counterFD`, after reading the last number
    /// (pread) and writing the next (pwrite), and names the item with that number.
    /// The inbox adds its checks to that (the walk from the root, the lock file's
    /// protocol).
    static func publishDurable(_ data: [UInt8], staging: String, directory: String, name: String, counterFD: Int32? = nil) {
        let fd = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        _ = data.withUnsafeBytes { raw in write(fd, raw.baseAddress, raw.count) }
        fsync(fd)
        close(fd)
        if let counterFD {
            _ = agc_lock(counterFD, Int32(AGC_LOCK_EXCLUSIVE), 1)
            var last: UInt64 = 0
            _ = pread(counterFD, &last, 8, 0)
            var next = last + 1
            _ = pwrite(counterFD, &next, 8, 0)
            rename(staging, directory + "/" + String(next))
            _ = agc_lock(counterFD, Int32(AGC_LOCK_UNLOCK), 0)
        } else {
            rename(staging, directory + "/" + name)
        }
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        fsync(dfd)
        close(dfd)
    }
}

private func bareLstat(_ path: String) -> Int32 {
    var st = stat()
    return lstat(path, &st)
}

private func bareStat(_ path: String) -> Int32 {
    var st = stat()
    return stat(path, &st)
}
