import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import ShareInbox
import DeviceTestSupport

/// The inbox's guarantees at the library level, on real files in a fresh device.
@Suite(.dedicatedThreads) struct InboxLibraryTests {
    let device: SimulatedDevice
    let notes: NotesExample

    init() throws {
        device = try SimulatedDevice(name: "InboxLibraryTests")
        notes = try NotesExample()
    }

    func inbox(_ target: SimulatedTarget? = nil, durable: Bool = false) throws -> ShareInbox {
        try ShareInbox(groupIdentifier: NotesExample.groupIdentifier, resolver: device.resolver(for: target ?? notes.app), durable: durable)
    }

    func drainAll(_ inbox: ShareInbox) throws -> [ReceivedItem] {
        var items: [ReceivedItem] = []
        try inbox.drain { items.append($0) }
        return items
    }

    @Test func deliversInEnqueueOrderAndOnlyOnce() throws {
        let share = try inbox(notes.shareExtension)
        var numbers: [UInt64] = []
        for i in 0..<50 {
            numbers.append(try share.enqueue(SharedItem(url: URL(string: "https://example.com/\(i)"), title: "item \(i)")))
        }
        #expect(numbers == Array(1...50))
        let items = try drainAll(try inbox())
        #expect(items.map(\.sequenceNumber) == Array(1...50))
        #expect(items.map { $0.url?.absoluteString } == (0..<50).map { "https://example.com/\($0)" })
        #expect(items.allSatisfy { $0.senderBundleIdentifier == "ai.systenics.notes.share" && $0.kind == "public.url" })
        #expect(try drainAll(try inbox()).isEmpty)
        // Numbers are never reused after a drain.
        #expect(try share.enqueue(SharedItem(title: "later")) == 51)
    }

    @Test func drainPicksUpItemsPublishedWhileItRuns() throws {
        let share = try inbox(notes.shareExtension)
        try share.enqueue(SharedItem(title: "first"))
        var titles: [String] = []
        try inbox().drain { item in
            titles.append(item.title ?? "")
            if titles.count < 3 { try share.enqueue(SharedItem(title: "during \(titles.count)")) }
        }
        #expect(titles == ["first", "during 1", "during 2"])
    }

    @Test func twoConcurrentDrainersNeverReceiveTheSameItem() async throws {
        let share = try inbox(notes.shareExtension)
        let total = 400
        for i in 0..<total { try share.enqueue(SharedItem(url: URL(string: "https://example.com/\(i)"))) }
        let app = try inbox(notes.app)
        let widget = try inbox(notes.widget)
        async let a = Task.detached { try self.drainAll(app).map(\.sequenceNumber) }.value
        async let b = Task.detached { try self.drainAll(widget).map(\.sequenceNumber) }.value
        let (first, second) = try await (a, b)
        #expect(Set(first).isDisjoint(with: second))
        #expect(Set(first).union(second) == Set(1...UInt64(total)))
        #expect(first.count + second.count == total)
        #expect(first == first.sorted() && second == second.sorted())
    }

    @Test func attachmentsAreCopiedAndRemovedWithTheirItem() throws {
        let (source, payload) = try device.makeScratchFile(randomBytes: 200_000)
        let note = device.scratch.appendingPathComponent("note.txt")
        try Data("a note".utf8).write(to: note)
        let share = try inbox(notes.shareExtension, durable: true)
        try share.enqueue(SharedItem(url: URL(string: "https://example.com/photo"), kind: "public.jpeg",
                                     attachments: [.init(fileURL: source, name: "photo.bin"), .init(fileURL: note)]))
        // The sources are copied, not moved.
        #expect(FileManager.default.fileExists(atPath: source.path))
        var seen: [String] = []
        try inbox().drain { item in
            #expect(item.attachments.map(\.lastPathComponent) == ["photo.bin", "note.txt"])
            let data = try #require(try AtomicFile.read(item.attachments[0], below: .marked(above: item.attachments[0])))
            #expect(data == payload)
            #expect(try AtomicFile.read(item.attachments[1], below: .marked(above: item.attachments[1])) == Data("a note".utf8))
            seen = item.attachments.map(\.path)
        }
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        // Nothing of the item is left anywhere in the inbox: only the sequence file
        // and the journal's consumer lock (the sequence's lock is in the coordination tree).
        #expect(SimulatedDevice.files(under: share.directory) == ["Journal/.consumer.lock", "Sequence"])
    }

    @Test func anItemIsRemovedOnlyAfterTheHandlerReturns() throws {
        let share = try inbox(notes.shareExtension)
        for i in 1...3 { try share.enqueue(SharedItem(title: "item \(i)")) }
        struct Refused: Error {}
        var calls: [UInt64] = []
        #expect(throws: Refused.self) {
            try self.inbox().drain { item in
                calls.append(item.sequenceNumber)
                if item.sequenceNumber == 2 { throw Refused() }
            }
        }
        #expect(calls == [1, 2])
        // Item 2 stayed, in its place, ahead of item 3.
        #expect(try drainAll(try inbox()).map(\.sequenceNumber) == [2, 3])
    }

    @Test func claimsOfADeadDrainComeBackInOrder() throws {
        let share = try inbox(notes.shareExtension)
        // Item 1 has an attachment (a directory in Items/, which a drain claims);
        // 2 and 3 are journal records: one walk delivers both kinds in number order.
        let (clip, _) = try device.makeScratchFile(randomBytes: 100)
        try share.enqueue(SharedItem(title: "item 1", attachments: [.init(fileURL: clip)]))
        for i in 2...3 { try share.enqueue(SharedItem(title: "item \(i)")) }
        // What a drain killed mid-handler leaves: item 1 in its claim directory,
        // whose lock nobody holds any more.
        let claims = share.directory.appendingPathComponent("Claims/12345-dead", isDirectory: true)
        try FileManager.default.createDirectory(at: claims, withIntermediateDirectories: false)
        let name = "00000000000000000001"
        try FileManager.default.moveItem(at: share.itemsDirectory.appendingPathComponent(name), to: claims.appendingPathComponent(name))
        #expect(try drainAll(try inbox()).map(\.title) == ["item 1", "item 2", "item 3"])
        #expect(!FileManager.default.fileExists(atPath: claims.path))
    }

    @Test func anOldItemComingBackAfterManyOthersIsDeliveredAndNewOnesFollow() throws {
        let share = try inbox(notes.shareExtension)
        let (clip, _) = try device.makeScratchFile(randomBytes: 100)
        try share.enqueue(SharedItem(title: "item 1", attachments: [.init(fileURL: clip)]))
        for i in 2...700 { try share.enqueue(SharedItem(title: "item \(i)")) }
        // Item 1 (with an attachment: a claimable directory) is held by a drain that
        // dies; another drain delivers 2...700 (journal records).
        let claims = share.directory.appendingPathComponent("Claims/12345-dead", isDirectory: true)
        try FileManager.default.createDirectory(at: claims, withIntermediateDirectories: false)
        let name = "00000000000000000001"
        try FileManager.default.moveItem(at: share.itemsDirectory.appendingPathComponent(name), to: claims.appendingPathComponent(name))
        let app = try inbox()
        // Keep the dead drain's claim out of reach of this first drain by holding its lock.
        // A drain session's lock file stands beside it in Claims/ (ShareInbox's claims coordinator).
        let holder = try FileCoordinator(lockFiles: .besideItems(below: nil)).lockFile(for: claims)
        // O_CLOEXEC, and unlocked before the close: a process another test spawns
        // meanwhile would otherwise inherit the descriptor, and the lock with it
        // (an OFD lock lives as long as any copy of its description), and the
        // second drain below would still find the claim held (failed once in 28).
        let fd = open(holder.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        var hold = flock(l_type: Int16(F_WRLCK), l_whence: Int16(SEEK_SET), l_start: 0, l_len: 0, l_pid: 0)
        #expect(fcntl(fd, 37 /* F_OFD_SETLK */, &hold) == 0)
        #expect(try drainAll(app).map(\.sequenceNumber) == Array(2...700))
        hold.l_type = Int16(F_UNLCK)
        #expect(fcntl(fd, 37 /* F_OFD_SETLK */, &hold) == 0)
        close(fd) // the "dead" drain's lock is released
        try share.enqueue(SharedItem(title: "item 701"))
        // The next drain puts item 1 back, delivers it, then skips the 699 gone numbers.
        #expect(try drainAll(app).map(\.sequenceNumber) == [1, 701])
    }

    @Test func aHalfWrittenItemIsNeverDeliveredAndIsCleanedUp() throws {
        var share = try inbox(notes.shareExtension)
        try share.enqueue(SharedItem(title: "complete"))
        // A writer killed mid-enqueue leaves a staging directory, maybe with a record.
        let staging = share.directory.appendingPathComponent("Staging/999-abc", isDirectory: true)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        try Data(#"{"version":1,"kind":"public.url","date":0,"attachments":[]}"#.utf8).write(to: staging.appendingPathComponent("item.json"))
        try Data(count: 10).write(to: staging.appendingPathComponent("photo.jpg"))
        #expect(try drainAll(share).map(\.title) == ["complete"])
        #expect(FileManager.default.fileExists(atPath: staging.path)) // younger than the default age
        share.staleStagingAge = 0
        #expect(try drainAll(share).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: staging.path))
    }

    @Test func aLostSequenceUpdateNeverReordersItems() throws {
        let share = try inbox(notes.shareExtension)
        for i in 1...3 { try share.enqueue(SharedItem(title: "item \(i)")) }
        _ = try inbox().drain(maximumCount: 1) { _ in }
        // After a power loss the sequence file may be older than the items on disk;
        // the boot id tells it apart.
        try AtomicFile.write(Data("another-boot 0\n".utf8), to: share.directory.appendingPathComponent("Sequence"), below: .marked(above: share.directory.appendingPathComponent("Sequence")))
        #expect(try share.enqueue(SharedItem(title: "item 4")) == 4)
        // Even a file that claims this boot but says less is corrected by the collision.
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try AtomicFile.write(Data("\(boot) 2\n".utf8), to: share.directory.appendingPathComponent("Sequence"), below: .marked(above: share.directory.appendingPathComponent("Sequence")))
        #expect(try share.enqueue(SharedItem(title: "item 5")) == 5)
        #expect(try drainAll(try inbox()).map(\.title) == ["item 2", "item 3", "item 4", "item 5"])
    }

    @Test func badInputIsATypedErrorAndWritesNothing() throws {
        let readable = device.scratch.appendingPathComponent("readable", isDirectory: true)
        try FileManager.default.createDirectory(at: readable, withIntermediateDirectories: true)
        let good = readable.appendingPathComponent("good.txt")
        try Data("x".utf8).write(to: good)
        let share = try ShareInbox(groupIdentifier: NotesExample.groupIdentifier, resolver: device.resolver(for: notes.shareExtension),
                                   durable: false, readableDirectories: [readable])
        let fifo = readable.appendingPathComponent("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let link = readable.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: good)
        let outside = device.scratch.appendingPathComponent("outside.txt")
        try Data("secret".utf8).write(to: outside)
        // A file in the container of a group the extension does not belong to.
        let otherContainer = device.root.appendingPathComponent("group.com.other.app", isDirectory: true)
        try FileManager.default.createDirectory(at: otherContainer, withIntermediateDirectories: true)
        let foreign = otherContainer.appendingPathComponent("private.txt")
        try Data("theirs".utf8).write(to: foreign)
        let unrestricted = try inbox(notes.shareExtension)

        func attach(_ url: URL, name: String? = nil) -> SharedItem { SharedItem(title: "t", attachments: [.init(fileURL: url, name: name)]) }
        func expectRefused(_ inbox: ShareInbox, _ item: SharedItem, _ check: (any Error) -> Bool, _ comment: Comment) {
            do {
                try inbox.enqueue(item)
                Issue.record("accepted: \(comment)")
            } catch {
                #expect(check(error), "\(comment): \(type(of: error)): \(error)")
                #expect(!"\(error)".isEmpty)
            }
        }
        // The inbox's own refusals are ShareInboxErrors; a file that is no regular
        // file is refused by the container below, an AppGroupError.
        let isInvalidItem = { (e: any Error) in if case .invalidInboxItem? = e as? ShareInboxError { return true } else { return false } }
        let isUnsafePath = { (e: any Error) in if case .unsafePath? = e as? ShareInboxError { return true } else { return false } }
        let isNotRegular = { (e: any Error) in if case .notARegularFile? = (e as? ShareInboxError)?.containerError { return true } else { return false } }

        expectRefused(share, attach(good, name: "../escape.txt"), isInvalidItem, "an attachment name with ../")
        expectRefused(share, attach(good, name: "a/b"), isInvalidItem, "an attachment name with /")
        expectRefused(share, attach(good, name: "bad\u{0}name"), isInvalidItem, "an attachment name with NUL")
        expectRefused(share, attach(good, name: ".."), isInvalidItem, "an attachment named ..")
        expectRefused(share, attach(good, name: ".hidden"), isInvalidItem, "an attachment name starting with .")
        expectRefused(share, attach(good, name: "item.json"), isInvalidItem, "an attachment named like the record")
        expectRefused(share, SharedItem(attachments: [.init(fileURL: good), .init(fileURL: good)]), isInvalidItem, "two attachments with one name")
        expectRefused(share, attach(URL(fileURLWithPath: "/etc/hostname")), isUnsafePath, "an absolute path outside the readable directories")
        expectRefused(share, attach(outside), isUnsafePath, "a sibling of the readable directory")
        expectRefused(share, attach(URL(fileURLWithPath: readable.path + "/../outside.txt")), isUnsafePath, "a path with ..")
        expectRefused(share, attach(link), isUnsafePath, "a symbolic link")
        expectRefused(share, attach(fifo), isNotRegular, "a FIFO")
        expectRefused(share, attach(readable.appendingPathComponent("missing.txt")), isInvalidItem, "a missing file")
        expectRefused(unrestricted, attach(readable), isNotRegular, "a directory")
        expectRefused(unrestricted, attach(foreign), isUnsafePath, "a file in another group's container")
        expectRefused(unrestricted, attach(URL(string: "https://example.com/file.txt")!), isUnsafePath, "not a file URL")
        expectRefused(share, SharedItem(title: String(repeating: "x", count: 5000)), isInvalidItem, "a title too long")
        expectRefused(share, SharedItem(title: "nul\u{0}title"), isInvalidItem, "a title with NUL")
        expectRefused(share, SharedItem(kind: "public url/../x"), isInvalidItem, "a kind that is no type identifier")
        #expect(throws: ShareInboxError.self) {
            try ShareInbox(groupIdentifier: NotesExample.groupIdentifier, resolver: self.device.resolver(for: self.notes.app), name: "../Elsewhere")
        }
        #expect(throws: ShareInboxError.self) {
            try ShareInbox(groupIdentifier: NotesExample.groupIdentifier, resolver: self.device.resolver(for: self.notes.app), name: "In\u{0}box")
        }
        // Nothing was published, nothing left in staging.
        #expect(try share.pendingCount() == 0)
        #expect(SimulatedDevice.files(under: share.directory).filter { !$0.hasPrefix(".") } == [])
        // A good attachment inside the readable directory is accepted.
        try share.enqueue(attach(good))
        #expect(try share.pendingCount() == 1)
    }

    @Test func aTargetOutsideTheGroupCannotOpenTheInbox() throws {
        #expect {
            try ShareInbox(groupIdentifier: NotesExample.groupIdentifier, resolver: self.device.resolver(for: self.notes.shareExtensionWithoutGroup))
        } throws: { error in
            guard case AppGroupError.notEntitled(let group, let bundle, _)? = (error as? ShareInboxError)?.containerError else { return false }
            return group == NotesExample.groupIdentifier && bundle == "ai.systenics.notes.share"
        }
        #expect(!FileManager.default.fileExists(atPath: try device.containerLocation(for: NotesExample.groupIdentifier).path))
    }
}
