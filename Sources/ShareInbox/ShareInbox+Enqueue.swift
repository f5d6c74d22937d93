import AppGroupContainer
import Foundation

extension ShareInbox {
    /// Adds `item` to the inbox, copying its attachments, and returns its sequence
    /// number. When this returns, the item is complete on disk and will be
    /// delivered exactly once; when it throws, nothing was published, except after
    /// ``ShareInboxError/container(_:)`` carrying `AppGroupError.notDurable(path:operation:errno:)`: the item is published
    /// (and will be delivered) but the final fsync failed, so do not enqueue it again.
    ///
    /// An item without attachments is appended, numbered, to this instance's
    /// journal log under the inbox's lock, then fdatasynced. An item with
    /// attachments is written where no drainer reads it (record and attachments
    /// fsynced), then published by one rename under the same lock.
    /// - Throws: ``ShareInboxError/invalidInboxItem(field:problem:)`` for a bad field
    ///   or attachment name; ``ShareInboxError/unsafePath(path:problem:)`` for an
    ///   attachment path that is relative, a symbolic link, or outside what the
    ///   caller may read; ``ShareInboxError/container(_:)`` carrying
    ///   `AppGroupError.notARegularFile(path:kind:)` for an attachment that is a
    ///   directory, a FIFO... (and every other file-system error);
    ///   ``ShareInboxError/invalidInboxItem(field:problem:)`` for an attachment over
    ///   ``attachmentByteLimit``; ``ShareInboxError/inboxSequenceExhausted(sequenceFile:last:)``.
    @discardableResult
    public func enqueue(_ item: SharedItem) throws -> UInt64 {
        let span = Tracing.begin(.inboxEnqueue)
        var number: UInt64?
        defer {
            span?.end(directory.path, [("item", number.map { "\($0)" } ?? "not published"), ("attachments", "\(item.attachments.count)")],
                      flowOut: number.map { traceFlow($0) })
        }
        number = try ShareInboxError.passingUp { try publish(item) }
        return number!
    }

    /// The trace's arrow from an item's enqueue to its delivery: the inbox and the item's number.
    func traceFlow(_ number: UInt64) -> UInt64 {
        Tracing.flowID("inbox", directory.path, "\(number)")
    }

    /// ``enqueue(_:)``'s work, throwing the container's errors as they are.
    func publish(_ item: SharedItem) throws -> UInt64 {
        // A link planted at the inbox or above it since it was opened: refused here,
        // at every enqueue, not once at open. The walk's descriptor then serves the
        // whole enqueue: nothing below it is looked up by path again.
        guard let inbox = try DirectoryHandle.open(standardizedPath: paths.directory, below: root) else {
            throw AppGroupError.systemCall(operation: "openat", path: directory.path, errno: .ENOENT)
        }
        var record = try ItemRecord(validating: item, sender: senderBundleIdentifier)
        // Open every source first, so bad input is refused before anything is written.
        var sources: [(file: OpenFile, name: String)] = []
        defer { for source in sources { source.file.close() } }
        for (index, attachment) in item.attachments.enumerated() {
            sources.append((try openAttachment(attachment, index: index), attachment.name))
        }

        // Without attachments the item is one record appended to this instance's
        // journal log (one fdatasync in all); with them, a directory holding the
        // record and the files.
        if sources.isEmpty { return try enqueueToJournal(try record.encoded(), inbox: inbox) }

        let staging = try makeStagingDirectory()
        var published = false
        defer { if !published { try? Self.removeTree(staging.path) } }
        for source in sources {
            let copy = try OpenFile.createNew(staging.appendingPathComponent(source.name).path)
            defer { copy.close() }
            let size = try copy.copy(from: source.file)
            // It may have grown since it was opened: the limit holds for what was copied.
            if size > Self.attachmentByteLimit { throw Self.attachmentTooLarge(path: source.file.path, size: size) }
            if durable { try copy.sync() }
            record.attachments.append(.init(name: source.name, size: size))
        }
        // The record goes last: a staging directory with a record is complete.
        try OpenFile.writeNew(staging.appendingPathComponent(Self.recordFileName).path, try record.encoded(), durable: durable)
        if durable { try FileOperations.syncDirectory(staging.path) }

        let number = try publish(staging: staging)
        published = true
        if durable { try FileOperations.syncDirectory(itemsDirectory.path, afterChanging: publishedPath(number)) }
        return number
    }

    /// Where item `number` was published.
    func publishedPath(_ number: UInt64) -> String {
        itemsDirectory.appendingPathComponent(InboxNames.itemName(number)).path
    }

    /// Opens an attachment's source for reading after checking where it is.
    func openAttachment(_ attachment: SharedItem.Attachment, index: Int) throws -> OpenFile {
        let url = attachment.fileURL
        let path = url.path
        guard url.isFileURL else {
            throw ShareInboxError.unsafePath(path: url.absoluteString, problem: "attachments[\(index)] is not a file URL")
        }
        guard path.hasPrefix("/") else {
            throw ShareInboxError.unsafePath(path: path, problem: "attachments[\(index)] is a relative path; give an absolute one")
        }
        if path.utf8.contains(0) {
            throw ShareInboxError.unsafePath(path: path, problem: "attachments[\(index)]'s path contains a NUL byte")
        }
        if path.split(separator: "/").contains("..") {
            throw ShareInboxError.unsafePath(path: path, problem: "attachments[\(index)]'s path contains '..'; give the file's real location")
        }
        // Where the file really is: its directory with links resolved.
        let real = url.deletingLastPathComponent().resolvingSymlinksInPath()
            .appendingPathComponent(url.lastPathComponent).standardizedFileURL.path
        if let readable = readableDirectories, !readable.contains(where: { Self.isInside(real, $0.path) }) {
            throw ShareInboxError.unsafePath(path: path, problem: "attachments[\(index)] is outside the directories this process may read ("
                + readable.map(\.path).joined(separator: ", ") + ")")
        }
        if let resolver {
            let root = resolver.root.resolvingSymlinksInPath().path
            if Self.isInside(real, root) {
                let groups = resolver.entitlements.applicationGroups
                // Its own data container is the caller's to read too (an extension's
                // copy of what the share sheet handed it lives there).
                let own = Self.isInside(real, resolver.applicationContainerLocation().resolvingSymlinksInPath().path)
                let allowed = own || groups.contains { Self.isInside(real, resolver.containerLocation(for: $0).resolvingSymlinksInPath().path) }
                if !allowed {
                    throw ShareInboxError.unsafePath(path: path, problem: "attachments[\(index)] is in another App Group's container (or another target's data container), which \(resolver.entitlements.bundleIdentifier) is not entitled to read")
                }
            }
        }
        let file: OpenFile
        do {
            file = try OpenFile.openForReading(path)
        } catch {
            if FileOperations.isSymbolicLink(error) {
                throw ShareInboxError.unsafePath(path: path, problem: "attachments[\(index)] is a symbolic link; pass the file it points to")
            } else if FileOperations.isMissing(error) {
                throw ShareInboxError.invalidInboxItem(field: "attachments[\(index)]", problem: "\(path) does not exist")
            } else {
                throw error
            }
        }
        if file.size > Self.attachmentByteLimit {
            file.close()
            throw Self.attachmentTooLarge(path: path, size: file.size, index: index)
        }
        return file
    }

    /// The refusal of an attachment over ``attachmentByteLimit``: its path, size and the limit.
    static func attachmentTooLarge(path: String, size: Int64, index: Int? = nil) -> ShareInboxError {
        ShareInboxError.invalidInboxItem(field: index.map { "attachments[\($0)]" } ?? "attachment \(path)",
                                       problem: "\(path) is \(size) bytes, more than the \(attachmentByteLimit) bytes (64 MiB) an attachment may have "
                                           + "(ShareInbox.attachmentByteLimit, the limit the app reads with); nothing was added: share a smaller file")
    }

    static func isInside(_ path: String, _ directory: String) -> Bool {
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        // By bytes: String's == and hasPrefix compare canonically, and ".../cafe\u{301}/x"
        // is not inside ".../caf\u{E9}" on disk (names that differ only in
        // Unicode normalization are different files).
        return path.utf8.elementsEqual(base.utf8) || path.utf8.starts(with: (base + "/").utf8)
    }

    /// A fresh directory in `Staging/` for an item with attachments.
    func makeStagingDirectory() throws -> URL {
        // Made by path: Staging/ must be a directory, not a link to elsewhere.
        try requireLayoutDirectory("Staging")
        while true {
            let name = "\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
            let url = stagingDirectory.appendingPathComponent(name, isDirectory: true)
            if try FileOperations.makeDirectory(url.path) { return url }
        }
    }
}
