@testable import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import AppGroupSystem
import TestSupport

@Suite("Atomic files", .dedicatedThreads)
struct AtomicFileTests {
    @Test("a save replaces the content with a new 0600 inode; reads and identities follow it")
    func saveAndRead() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("data")
            #expect(try AtomicFile.read(file, below: .marked(above: file)) == nil)
            #expect(try AtomicFile.identity(atPath: file.path, below: .marked(above: file)) == nil)
            try AtomicFile.write(Data("one".utf8), to: file, below: .marked(above: file))
            let first = try #require(try AtomicFile.readWithIdentity(file, below: .marked(above: file)))
            #expect(first.data == Data("one".utf8))
            #expect(try AtomicFile.identity(atPath: file.path, below: .marked(above: file)) == first.identity)
            #expect(permissions(file.path) == 0o600)
            try AtomicFile.write(Data(), to: file, below: .marked(above: file), durable: false)
            #expect(try AtomicFile.read(file, below: .marked(above: file)) == Data())
            let second = try #require(try AtomicFile.identity(atPath: file.path, below: .marked(above: file)))
            #expect(second.inode != first.identity.inode, "an atomic save makes a new inode")
            #expect(second.size == 0)
            #expect(names(in: dir) == ["data"])
            #expect(try AtomicFile.remove(file, below: .marked(above: file)))
            #expect(try !AtomicFile.remove(file, below: .marked(above: file)))
            #expect(names(in: dir) == [])
        }
    }

    @Test("a file over the read limit is fileTooLarge, and a directory is notARegularFile")
    func readRefusals() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("big")
            try AtomicFile.write(Data(count: 100), to: file, below: .marked(above: file), durable: false)
            #expect(throws: AppGroupError.fileTooLarge(path: file.path, size: 100, limit: 99)) { try AtomicFile.read(file, below: .marked(above: file), limit: 99) }
            #expect(try AtomicFile.read(file, below: .marked(above: file), limit: 100)?.count == 100)
            let sub = dir.appendingPathComponent("sub")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: false)
            #expect(throws: AppGroupError.notARegularFile(path: sub.path, kind: "directory")) { try AtomicFile.read(sub, below: .marked(above: sub)) }
            #expect(throws: AppGroupError.notARegularFile(path: sub.path, kind: "directory")) { try AtomicFile.write(Data(), to: sub, below: .marked(above: sub)) }
        }
    }

    @Test("a file that grows past the limit while it is read is refused after reading at most limit + 1 bytes (issue 23, B9)")
    func growingFileStopsAtTheLimit() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("growing")
            try AtomicFile.write(Data(count: 10), to: file, below: .marked(above: file), durable: false)
            let limit: Int64 = 1 << 20
            // Between the size check (fstat) and the first read, another writer
            // appends 8 MiB: what fstat said no longer bounds the read.
            let grown = Locked(false)
            let plan: FaultInjection.Plan = { call, path in
                if call == .read, path == file.path, grown.withLock({ done in defer { done = true }; return !done }) {
                    if let handle = FileHandle(forWritingAtPath: file.path) {
                        handle.seekToEndOfFile()
                        handle.write(Data(count: 8 << 20))
                        try? handle.close()
                    }
                }
                return nil
            }
            do {
                _ = try FaultInjection.with(plan) { try AtomicFile.read(file, below: .marked(above: file), limit: limit) }
                Issue.record("a file grown past the limit was read whole")
            } catch AppGroupError.fileTooLarge(let path, let size, let refused) {
                #expect(path == file.path && refused == limit)
                // It stopped at the first byte past the limit: it read no more than that.
                #expect(size == limit + 1, "read \(size) bytes of a file grown to \(8 << 20) with a limit of \(limit)")
                #expect(AppGroupError.fileTooLarge(path: path, size: size, limit: refused).description.contains("more than the \(limit) bytes"))
            }
        }
    }

    @Test("temporaries left by a killed writer are recognised and removed once stale, never the data or a young one")
    func staleTemporaries() throws {
        try withTemporaryDirectory { dir in
            try AtomicFile.write(Data("kept".utf8), to: dir.appendingPathComponent("data"), below: .marked(above: dir.appendingPathComponent("data")), durable: false)
            let stale = dir.appendingPathComponent(AtomicFile.temporaryPrefix(for: "data") + "123-456")
            let young = dir.appendingPathComponent(AtomicFile.temporaryPrefix(for: "data") + "123-789")
            let otherStale = dir.appendingPathComponent(AtomicFile.temporaryPrefix(for: "other") + "1-2")
            for url in [stale, young, otherStale] { try Data("partial".utf8).write(to: url) }
            let hourAgo = Date().addingTimeInterval(-3600)
            for url in [stale, otherStale] {
                try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: url.path)
            }
            #expect(AtomicFile.isTemporaryName(stale.lastPathComponent))
            #expect(!AtomicFile.isTemporaryName("data"))
            #expect(!AtomicFile.isTemporaryName(".data.lock"))
            #expect(AtomicFile.removeStaleTemporaries(in: dir, below: .marked(above: dir), for: "data", olderThan: 60) == 1)
            #expect(names(in: dir) == [otherStale.lastPathComponent, young.lastPathComponent, "data"].sorted())
            #expect(AtomicFile.removeStaleTemporaries(in: dir, below: .marked(above: dir), olderThan: 60) == 1)
            #expect(names(in: dir) == [young.lastPathComponent, "data"].sorted())
            #expect(try AtomicFile.read(dir.appendingPathComponent("data"), below: .marked(above: dir.appendingPathComponent("data"))) == Data("kept".utf8))
        }
    }

    @Test("a symbolic link planted where a data file belongs is refused by save, read and identity; its target is untouched", .tags(.hostile),
          arguments: ["existing target", "dangling target"])
    func symlinkedDataFileRefused(kind: String) throws {
        try withTemporaryDirectory { dir in
            let outside = dir.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
            let victim = outside.appendingPathComponent("victim")
            if kind == "existing target" { try Data("secret".utf8).write(to: victim) }
            let inside = dir.appendingPathComponent("container")
            try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: false)
            let file = inside.appendingPathComponent("data")
            try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: victim.path)

            let saveError = #expect(throws: AppGroupError.self) { try AtomicFile.write(Data("evil".utf8), to: file, below: .marked(above: file)) }
            guard case let .unsafePath(path, _)? = saveError else { Issue.record("got \(String(describing: saveError))"); return }
            #expect(path == file.path)
            #expect(throws: AppGroupError.self) { try AtomicFile.read(file, below: .marked(above: file)) }
            #expect(throws: AppGroupError.self) { try AtomicFile.identity(atPath: file.path, below: .marked(above: file)) }
            if case .unsafePath? = (#expect(throws: AppGroupError.self) { try AtomicFile.read(file, below: .marked(above: file)) }) {} else {
                Issue.record("reading through a link is not unsafePath")
            }
            #expect(names(in: outside) == (kind == "existing target" ? ["victim"] : []))
            if kind == "existing target" { #expect(try Data(contentsOf: victim) == Data("secret".utf8)) }
            #expect(names(in: inside) == ["data"], "the link stays, and no temporary file is left")
        }
    }
}

extension MultiProcess {
    /// Fault injection is process-wide, so these run serialized; each plan only
    /// fails calls on its own temporary directory.
    @Suite("Failed saves", .tags(.faults))
    struct FailedSaves {
        static let cases: [(FaultInjection.Call, Errno)] = [
            (.openat, .ENOSPC), (.write, .ENOSPC), (.write, .EIO), (.fsync, .ENOSPC), (.fsync, .EIO), (.renameat, .ENOSPC), (.renameat, .EIO),
        ]

        @Test("a save failing in open, write, fsync or rename leaves the old content and no temporary file",
              arguments: cases.indices)
        func failedSaveKeepsOldContent(index: Int) throws {
            let (call, code) = Self.cases[index]
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("data")
                try AtomicFile.write(Data("old".utf8), to: file, below: .marked(above: file))
                let before = try AtomicFile.identity(atPath: file.path, below: .marked(above: file))
                let prefix = dir.path + "/"
                let error = FaultInjection.with({ c, path in c == call && path.hasPrefix(prefix) ? code : nil }) {
                    #expect(throws: AppGroupError.self) { try AtomicFile.write(Data("new content".utf8), to: file, below: .marked(above: file)) }
                }
                guard case let .systemCall(operation, _, errno)? = error else {
                    Issue.record("\(call) \(code): got \(String(describing: error))")
                    return
                }
                #expect(operation == call.rawValue)
                #expect(errno == code)
                #expect(error?.description.contains("previous content is intact") == true, "\(error?.description ?? "")")
                #expect(try AtomicFile.read(file, below: .marked(above: file)) == Data("old".utf8))
                #expect(try AtomicFile.identity(atPath: file.path, below: .marked(above: file)) == before)
                #expect(names(in: dir) == ["data"], "a temporary file was left behind")

                // A first save that fails leaves nothing at all.
                let fresh = dir.appendingPathComponent("fresh")
                _ = FaultInjection.with({ c, path in c == call && path.hasPrefix(prefix) ? code : nil }) {
                    #expect(throws: AppGroupError.self) { try AtomicFile.write(Data("x".utf8), to: fresh, below: .marked(above: fresh)) }
                }
                #expect(names(in: dir) == ["data"])
                // And the next save, without faults, works.
                try AtomicFile.write(Data("new".utf8), to: file, below: .marked(above: file))
                #expect(try AtomicFile.read(file, below: .marked(above: file)) == Data("new".utf8))
            }
        }

        @Test("a directory fsync that fails after the rename says the new content is in place but not durable")
        func directorySyncFailure() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("data")
                try AtomicFile.write(Data("old".utf8), to: file, below: .marked(above: file))
                let directory = dir.standardizedFileURL.path
                let error = FaultInjection.with({ c, path in c == .fsync && path == directory ? .EIO : nil }) {
                    #expect(throws: AppGroupError.self) { try AtomicFile.write(Data("new".utf8), to: file, below: .marked(above: file)) }
                }
                guard case let .notDurable(path, _, errno)? = error else {
                    Issue.record("got \(String(describing: error))")
                    return
                }
                #expect(path == file.standardizedFileURL.path && errno == .EIO)
                #expect(error?.description.contains("intact") == false, "\(error?.description ?? "")")
                #expect(try AtomicFile.read(file, below: .marked(above: file)) == Data("new".utf8))
                #expect(names(in: dir) == ["data"], "a temporary file was left behind")
            }
        }

        @Test("a coordinated save that fails keeps the old content and releases the lock")
        func failedCoordinatedSave() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("data")
                try AtomicFile.write(Data("old".utf8), to: file, below: .marked(above: file))
                let prefix = dir.path + "/"
                _ = FaultInjection.with({ c, path in c == .renameat && path.hasPrefix(prefix) ? .ENOSPC : nil }) {
                    #expect(throws: AppGroupError.self) {
                        try FileCoordinator().coordinate(writingItemAt: file) { url in try AtomicFile.write(Data("new".utf8), to: url, below: .marked(above: url)) }
                    }
                }
                #expect(try AtomicFile.read(file, below: .marked(above: file)) == Data("old".utf8))
                #expect(names(in: dir) == ["data"], "no temporary is left, and no lock file stands beside the item")
                #expect(onThreads(1) { _ in
                    #expect(throws: Never.self) { try FileCoordinator(timeout: 2).coordinate(writingItemAt: file) { _ in } }
                })
            }
        }

        @Test("a failing lock call is a typed error, not a hang")
        func failingLock() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("data")
                let lockPath = try FileCoordinator.lockFileURL(for: file).path
                let error = FaultInjection.with({ c, path in c == .lock && path == lockPath ? .ENOLCK : nil }) {
                    #expect(throws: AppGroupError.self) { try FileCoordinator().coordinate(writingItemAt: file) { _ in } }
                }
                guard case let .systemCall(_, path, errno)? = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(errno == .ENOLCK)
                #expect(path == lockPath)
            }
        }
    }

    @Suite("Planted lock-file links", .tags(.hostile))
    struct PlantedLockLinks {
        @Test("a symbolic link planted where a lock file belongs is refused with a typed error; its target is untouched",
              arguments: ["existing target", "dangling target"])
        func symlinkedLockFileRefused(kind: String) throws {
            try withTemporaryDirectory { dir in
                let outside = dir.appendingPathComponent("outside")
                try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
                let victim = outside.appendingPathComponent("victim")
                if kind == "existing target" {
                    try Data("secret".utf8).write(to: victim)
                    #expect(chmod(victim.path, 0o644) == 0)
                }
                let inside = dir.appendingPathComponent("container")
                try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: false)
                let file = inside.appendingPathComponent("data")
                let lock = try FileCoordinator.lockFileURL(for: file)
                try FileManager.default.createDirectory(at: lock.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
                try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: victim.path)
                defer { try? FileManager.default.removeItem(at: lock) }

                for attempt in ["write", "read"] {
                    let error = #expect(throws: AppGroupError.self, "\(attempt)") {
                        if attempt == "write" {
                            try FileCoordinator(timeout: 1).coordinate(writingItemAt: file) { _ in Issue.record("ran under a planted lock link") }
                        } else {
                            try FileCoordinator(timeout: 1).coordinate(readingItemAt: file) { _ in Issue.record("ran under a planted lock link") }
                        }
                    }
                    guard case let .unsafePath(path, _)? = error else {
                        Issue.record("\(attempt): got \(String(describing: error))")
                        continue
                    }
                    #expect(path == lock.path)
                    #expect(error?.description.contains("symbolic link") == true)
                }
                if kind == "existing target" {
                    #expect(try Data(contentsOf: victim) == Data("secret".utf8))
                    #expect(permissions(victim.path) == 0o644, "the lock file's chmod went through the link")
                    // And no lock was taken on it: another opener can lock it freely.
                } else {
                    #expect(names(in: outside) == [], "the lock file was created through the link")
                }
                #expect(names(in: inside) == [])
            }
        }
    }
}
