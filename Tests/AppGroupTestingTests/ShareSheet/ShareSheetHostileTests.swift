import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// A share extension is code the device does not trust: a real, sandboxed
/// extension process tampers with its request folder and answers with what the
/// device must refuse. The device acts on the extension's folders by descriptor
/// only, copies returned files out itself (regular files, bounded), and reports
/// a refused reply with a typed error; the test process neither follows a link
/// the extension planted nor reads what the extension could not.
@Suite(.simulatedDevices, .tags(.multiprocess, .hostile))
struct ShareSheetHostileTests {
    static func app() throws -> SimulatedTarget {
        try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "A1B2C3D4E5",
                            bundleIdentifier: "com.example.notes", applicationGroups: ["group.com.example.notes"])
    }

    /// A file item, so that the request has an `Input` folder.
    static func fileItem(on device: SimulatedDevice) throws -> NSExtensionItem {
        let (file, _) = try device.makeScratchFile(named: "photo.jpg", randomBytes: 1_000)
        let item = NSExtensionItem()
        item.attachments = [try #require(NSItemProvider(contentsOf: file))]
        return item
    }

    /// A folder outside every sandbox, with a file in it, for the extension to point at.
    static func victim(on device: SimulatedDevice, holdingInput: Bool = false) throws -> (folder: URL, file: URL) {
        let folder = device.outside.appendingPathComponent("victim", isDirectory: true)
        let inner = holdingInput ? folder.appendingPathComponent("Input", isDirectory: true) : folder
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        let file = inner.appendingPathComponent("keep.txt")
        try Data("the test's own file".utf8).write(to: file)
        return (folder, file)
    }

    /// Shares with the probe in `arguments`' mode and returns the refusal the share
    /// threw; records an issue (with what happened instead) when it did not throw one.
    static func refusal(on device: SimulatedDevice, _ arguments: [String], timeout: TimeInterval = 120) async throws -> ShareReplyRefusal? {
        do {
            let outcome = try await device.share([NSExtensionItem()], to: try ShareSheetTests.shareExtension(), built: "ShareExtensionProbe",
                                                 arguments: arguments, timeout: timeout)
            Issue.record("the reply was not refused: \(outcome)")
            // What the host would do with it: load the returned file, with a
            // generous deadline so that a FIFO cannot hang the test.
            if let provider = outcome.returnedItems?.first?.attachments?.first,
               let type = provider.registeredTypeIdentifiers.first {
                let loaded = DispatchSemaphore(value: 0)
                provider.loadDataRepresentation(forTypeIdentifier: type) { data, _ in
                    Issue.record("the host read \(data?.count ?? 0) bytes of it")
                    loaded.signal()
                }
                if loaded.wait(timeout: .now() + 30) == .timedOut { Issue.record("loading the returned item hung the host") }
            }
            return nil
        } catch SimulationError.shareReply(let refusal) {
            #expect(refusal.target == "NotesShare")
            #expect(refusal.description.contains("NotesShare"), "\(refusal)")
            return refusal
        }
    }

    /// The request folder, or its `Input`, swapped for a link to a folder outside
    /// every sandbox before the device removes `Input`: the device removes the
    /// `Input` it made (or the link), never what the link leads to.
    @Test func aSwappedRequestFolderOrInputLeavesTheOutsideAlone() async throws {
        let device = try SimulatedDevice()
        let input = try Self.victim(on: device)
        let outcome = try await device.share([try Self.fileItem(on: device)], to: try ShareSheetTests.shareExtension(),
                                             built: "ShareExtensionProbe", arguments: ["swap-input", input.folder.path])
        #expect(outcome.process.outputLines.contains { $0.hasPrefix("swapped Input") }, "\(outcome.process)")
        #expect(outcome.returnedItems != nil, "\(outcome)")
        #expect(FileManager.default.fileExists(atPath: input.file.path), "the folder the Input link named is intact")
        try FileManager.default.removeItem(at: input.folder)

        let request = try Self.victim(on: device, holdingInput: true)
        let swapped = try await device.share([try Self.fileItem(on: device)], to: try ShareSheetTests.shareExtension(),
                                             built: "ShareExtensionProbe", arguments: ["swap-request", request.folder.path])
        #expect(swapped.process.outputLines.contains { $0.hasPrefix("swapped the request folder") }, "\(swapped.process)")
        #expect(FileManager.default.fileExists(atPath: request.file.path),
                "the Input folder removed is the one the device made, not the one the link leads to")
    }

    @Test func anotherTargetsFileNamedByItsPathIsRefusedUnread() async throws {
        let device = try SimulatedDevice()
        let home = try Self.app().dataContainer(on: device)
        let secret = home.documents.appendingPathComponent("secret.txt")
        try Data("the app's secret".utf8).write(to: secret)
        let parents = String(repeating: "../", count: 12)
        for name in [secret.path, parents + String(secret.path.dropFirst()), "item/../../../\(secret.lastPathComponent)", "/dev/zero"] {
            let refusal = try #require(try await Self.refusal(on: device, ["return", "name", name]))
            #expect(refusal.item == name, "\(refusal)")
        }
        #expect(SimulatedDevice.files(under: device.directory.appendingPathComponent("Returned")).isEmpty, "nothing was copied for the host")
    }

    @Test func aLinkInOutputIsRefusedUnfollowed() async throws {
        let device = try SimulatedDevice()
        let secret = try Self.app().dataContainer(on: device).documents.appendingPathComponent("secret.txt")
        try Data("the app's secret".utf8).write(to: secret)
        for target in [secret.path, "/dev/zero"] {
            let refusal = try #require(try await Self.refusal(on: device, ["return", "symlink", target]))
            #expect(refusal.item == "item/returned.bin")
            #expect(refusal.problem.contains("symbolic link"), "\(refusal)")
        }
    }

    @Test func aFIFOIsRefusedWithoutBlocking() async throws {
        let device = try SimulatedDevice()
        let refusal = try #require(try await Self.refusal(on: device, ["return", "fifo"]))
        #expect(refusal.problem.contains("FIFO"), "\(refusal)")
    }

    @Test func aSocketIsRefused() async throws {
        let device = try SimulatedDevice()
        let refusal = try #require(try await Self.refusal(on: device, ["return", "socket"]))
        #expect(refusal.problem.contains("not a regular file"), "\(refusal)")
    }

    @Test func aSecondNameOfAFileIsRefused() async throws {
        let device = try SimulatedDevice()
        let refusal = try #require(try await Self.refusal(on: device, ["return", "hardlink"]))
        #expect(refusal.problem.contains("hard links"), "\(refusal)")
    }

    @Test func aFilePastTheLimitIsRefusedUnread() async throws {
        let device = try SimulatedDevice()
        // Sparse: it costs the disk nothing, and reading it would cost 1 GiB.
        let refusal = try #require(try await Self.refusal(on: device, ["return", "huge", "\(ShareReplyLimits.returnedFileBytes + 1)"]))
        #expect(refusal.problem.contains("past the limit"), "\(refusal)")
    }

    @Test func aReplyPastItsLimitsIsRefused() async throws {
        let device = try SimulatedDevice()
        let tooLarge = try #require(try await Self.refusal(on: device, ["flood-reply", "size"]))
        #expect(tooLarge.item == "reply.plist")
        #expect(tooLarge.problem.contains("past the limit"), "\(tooLarge)")
        let tooMany = try #require(try await Self.refusal(on: device, ["flood-reply", "count"]))
        #expect(tooMany.problem.contains("representations"), "\(tooMany)")
    }

    @Test func aReturnedFileReachesTheHostAsTheDevicesCopy() async throws {
        let device = try SimulatedDevice()
        let (file, bytes) = try device.makeScratchFile(named: "photo.jpg", randomBytes: 70_000)
        let item = NSExtensionItem()
        item.attachments = [try #require(NSItemProvider(contentsOf: file))]
        // The probe's "return-input" is its ordinary completion: it hands back the
        // text receipt; the file round trip is the copy of what it returns.
        let outcome = try await device.share([item], to: try ShareSheetTests.shareExtension(), built: "ShareExtensionProbe",
                                             arguments: ["complete-with-file"])
        let provider = try #require(outcome.returnedItems?.first?.attachments?.first, "\(outcome)")
        let url = await withCheckedContinuation { (done: CheckedContinuation<URL?, Never>) in
            provider.loadItem(forTypeIdentifier: "public.jpeg") { item, _ in done.resume(returning: (item as Any) as? URL) }
        }
        let copy = try #require(url)
        #expect(copy.path.hasPrefix(device.directory.appendingPathComponent("Returned").path + "/"), "the device's copy, outside every container: \(copy.path)")
        #expect(try Data(contentsOf: copy) == bytes)
    }
}

/// The device's teardown removes what its targets left by descriptor: a link is
/// removed, not followed; a folder whose permissions its target took away, and a
/// tree nested past PATH_MAX, are removed too.
@Suite(.tags(.multiprocess, .hostile))
struct DeviceTeardownHostileTests {
    @Test func aTargetsLitterIsRemovedWholeAndTheOutsideIsKept() async throws {
        let device = try SimulatedDevice(keepPolicy: .never)
        let keep = FileManager.default.temporaryDirectory.appendingPathComponent("agc-teardown-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keep) }
        try Data("kept".utf8).write(to: keep.appendingPathComponent("keep.txt"))
        let outcome = try await device.share([NSExtensionItem()], to: try ShareSheetTests.shareExtension(), built: "ShareExtensionProbe",
                                             arguments: ["litter", keep.path])
        #expect(outcome.process.outputLines.contains { $0.hasPrefix("littered") }, "\(outcome.process)")
        let directory = device.directory
        device.remove()
        #expect(FileManager.default.fileExists(atPath: keep.appendingPathComponent("keep.txt").path), "the link was removed, not followed")
        #expect(!FileManager.default.fileExists(atPath: directory.path), "the device's folder is gone whole")
    }
}
