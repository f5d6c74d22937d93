import Foundation
import AppGroupSystem

/// Reports the names of entries that appear, change or vanish in one directory,
/// whichever process changed them.
///
/// On Linux it uses inotify (an atomic save shows up as a rename into the
/// directory); a thread of its own sleeps in poll(2), so an idle watcher uses no
/// CPU. Elsewhere it compares directory listings every 50 ms. Events carry names
/// only; rapid changes may coalesce into one delivery.
package final class DirectoryWatcher: Sendable {
    /// The directory watched.
    package let directory: URL
    private let stop: Locked<(() -> Void)?>

    /// Starts watching `directory`, calling `handler` on a private thread with the
    /// set of entry names changed since the last call. The handler runs as the
    /// identity of the code that made the watcher (its `IdentityScope`, or none).
    /// - Throws: when the directory cannot be watched (missing, not a directory,
    ///   the inotify limit reached).
    package convenience init(directory: URL, handler: @escaping @Sendable (Set<String>) -> Void) throws(AppGroupError) {
        try self.init(directory: directory, appendsIn: nil, handler: handler)
    }

    /// Watches `directory` as ``init(directory:handler:)`` does and, when given,
    /// also the files of `appendsIn` being written to (each write, not only the
    /// close: an append-only log that stays open), reporting both directories'
    /// names in one set. For the share inbox, whose journal logs grow in place.
    /// When `appendsIn` is removed and made again, the new directory is watched
    /// (its name is reported once, for what it got before the watch moved).
    ///
    /// `appending` names the files of `appendsIn` whose writes count; on Linux each
    /// of them gets a watch of its own, so that a write to any other file there
    /// (the inbox drain's cursors, written at every delivery) wakes no thread at
    /// all. Files appearing, moving in or going are reported whatever their name.
    /// When the kernel refuses a file its watch (the inotify limit), every write in
    /// the directory is reported instead, as without `appending`.
    ///
    /// Writes are reported at most once per ``appendCoalescing``: the first after a
    /// quiet spell at once, the ones that follow it within that time together.
    package init(directory: URL, appendsIn second: URL?, appending: (@Sendable (String) -> Bool)? = nil,
                 handler delivered: @escaping @Sendable (Set<String>) -> Void) throws(AppGroupError) {
        self.directory = directory
        // Its thread inherits no scope: it answers as whoever made the watcher.
        let identity = CarriedIdentity.here()
        let handler: @Sendable (Set<String>) -> Void = { names in identity.run { delivered(names) } }
        #if os(Linux)
        var remade: Remade?
        var appends: AppendWatches?
        let inotify = try fromSystem(SystemCalls.inotifyInit())
        do throws(SystemError) {
            let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB)
            let main = try SystemCalls.inotifyAddWatch(inotify, directory.path, mask)
            if let second {
                let names = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
                let secondMask = appending == nil ? UInt32(IN_MODIFY | IN_MOVED_TO) : names
                let watch = try SystemCalls.inotifyAddWatch(inotify, second.path, secondMask)
                if let appending {
                    appends = AppendWatches(inotify: inotify, path: second.path, directoryWatch: watch, accepts: appending)
                    appends?.watchExisting()
                }
                // A watch follows an inode: if another process removes `second` and
                // it is made again, its parent says so and the new one is watched.
                let parent = try SystemCalls.inotifyAddWatch(inotify, second.deletingLastPathComponent().path, UInt32(IN_CREATE | IN_MOVED_TO) | UInt32(IN_MASK_ADD))
                if parent != main { remade = Remade(parentWatch: parent, name: second.lastPathComponent, path: second.path, mask: secondMask) }
            }
        } catch {
            SystemCalls.close(inotify)
            throw AppGroupError(error)
        }
        let wake: (read: Int32, write: Int32)
        do {
            wake = try SystemCalls.pipe()
        } catch {
            SystemCalls.close(inotify)
            throw AppGroupError(error)
        }
        stop = Locked({ SystemCalls.poke(wake.write) })
        let thread = Thread { [remade, appends] in
            var appends = appends
            Self.run(inotify: inotify, wake: wake.read, remade: remade, appends: &appends, handler: handler)
            SystemCalls.close(inotify)
            SystemCalls.close(wake.read)
            SystemCalls.close(wake.write)
        }
        #else
        let cancelled = Locked(false)
        stop = Locked({ cancelled.withLock { $0 = true } })
        let paths = [directory.path] + (second.map { [$0.path] } ?? [])
        let thread = Thread {
            var previous = Self.snapshot(paths)
            while !cancelled.withLock({ $0 }) {
                usleep(50_000)
                let current = Self.snapshot(paths)
                let changed = Set(current.keys).symmetricDifference(previous.keys)
                    .union(current.keys.filter { previous[$0] != nil && previous[$0] != current[$0] })
                previous = current
                if !changed.isEmpty { handler(changed) }
            }
        }
        #endif
        thread.name = "DirectoryWatcher \(directory.lastPathComponent)"
        thread.start()
    }

    /// Stops watching; no handler call starts after this returns... except one
    /// already under way. Safe to call more than once.
    package func cancel() {
        let action = stop.withLock { current -> (() -> Void)? in
            defer { current = nil }
            return current
        }
        action?()
    }

    deinit { cancel() }

    /// Names changed in `directory`, as an async sequence. Cancelling the consuming
    /// task (or dropping the sequence) stops the watcher.
    package static func changes(in directory: URL) throws(AppGroupError) -> AsyncStream<Set<String>> {
        let (stream, continuation) = AsyncStream<Set<String>>.makeStream(bufferingPolicy: .unbounded)
        let watcher = try DirectoryWatcher(directory: directory) { names in continuation.yield(names) }
        continuation.onTermination = { _ in watcher.cancel() }
        return stream
    }

    /// After a delivery that reported writes to a watched file, the thread waits this
    /// long (milliseconds) before it looks again. Each record appended to a log is
    /// one inotify event: without the wait, four extensions enqueueing at full speed
    /// woke this thread and the drain for nearly every record, and the appends
    /// themselves paid for the wake-ups; with it they ran 7% faster end to end (the
    /// benchmarks' case 5). A write after a quiet spell is still reported at once.
    package static let appendCoalescing: Int32 = 1

    #if os(Linux)
    /// The watches of the second directory's files whose writes count, by watch descriptor.
    private struct AppendWatches: Sendable {
        let inotify: Int32
        let path: String
        var directoryWatch: Int32
        let accepts: @Sendable (String) -> Bool
        var files: [Int32: String] = [:]

        /// Watches the writes to `name` when it is one that counts; when the kernel
        /// refuses, every write in the directory is watched instead.
        mutating func watch(_ name: String) {
            guard accepts(name) else { return }
            do {
                files[try SystemCalls.inotifyAddWatch(inotify, path + "/" + name, UInt32(IN_MODIFY))] = name
            } catch .call(_, _, let code) where code == .ENOENT {
                // Gone already: nothing to watch.
            } catch {
                _ = try? SystemCalls.inotifyAddWatch(inotify, path, UInt32(IN_MODIFY) | UInt32(IN_MASK_ADD))
            }
        }

        /// Watches the files already there (at the start, or in a directory made again).
        mutating func watchExisting() {
            var names: [String] = []
            _ = try? SystemCalls.forEachEntry(in: path) { names.append($0) }
            for name in names { watch(name) }
        }
    }

    /// The parent's watch that notices the second directory made again.
    private struct Remade {
        let parentWatch: Int32
        let name: String
        let path: String
        let mask: UInt32
    }

    private static func run(inotify: Int32, wake: Int32, remade: Remade?, appends: inout AppendWatches?, handler: @Sendable (Set<String>) -> Void) {
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let ready = SystemCalls.pollReadable([inotify, wake], timeout: -1)
            if ready.contains(wake) { return }
            guard ready.contains(inotify) else { continue }
            var names = Set<String>()
            var written = false
            while true {
                let n = SystemCalls.readAvailable(inotify, into: buffer)
                if n <= 0 { break }
                var offset = 0
                // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[]; }
                while offset + 16 <= n {
                    let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                    if length > 0, offset + 16 + length <= n {
                        let bytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + 16)..<(offset + 16 + length)])
                        let name = String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
                        let watch = buffer.load(fromByteOffset: offset, as: Int32.self)
                        if let remade, watch == remade.parentWatch {
                            // Only the second directory's own name counts here; what was
                            // written in it before this watch is reported as its name.
                            if name == remade.name {
                                if let added = try? SystemCalls.inotifyAddWatch(inotify, remade.path, remade.mask) {
                                    appends?.directoryWatch = added
                                    appends?.watchExisting()
                                }
                                names.insert(name)
                            }
                        } else if !name.isEmpty {
                            if watch == appends?.directoryWatch, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { appends?.watch(name) }
                            names.insert(name)
                        }
                    } else if length == 0, let name = appends?.files[buffer.load(fromByteOffset: offset, as: Int32.self)] {
                        // A watched file: written to, or its watch gone with it.
                        if mask & UInt32(IN_IGNORED) != 0 {
                            appends?.files[buffer.load(fromByteOffset: offset, as: Int32.self)] = nil
                        } else {
                            names.insert(name)
                        }
                    }
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { names.insert("") } // overflow: "something changed"
                    // Only the append watches ask for IN_MODIFY.
                    if mask & UInt32(IN_MODIFY) != 0 { written = true }
                    offset += 16 + length
                }
            }
            if !names.isEmpty { handler(names) }
            // Lets the writes of a stream gather into the next delivery; a cancel still ends the wait.
            if written, SystemCalls.pollReadable([wake], timeout: appendCoalescing).contains(wake) { return }
        }
    }
    #else
    private static func snapshot(_ paths: [String]) -> [String: Double] {
        var result: [String: Double] = [:]
        for path in paths {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            for name in names {
                let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
                result[name] = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            }
        }
        return result
    }
    #endif
}
