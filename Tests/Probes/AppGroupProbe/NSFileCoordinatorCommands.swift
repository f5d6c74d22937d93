import AppGroupContainer
import AppGroupFoundation
import Foundation
import ProbeSupport

/// The probe's NSFileCoordinator commands (listed at the top of main.swift).
enum NSFileCoordinatorCommands {
    /// `ns-write`: a coordinated write of `--text` into `--file`, made in two
    /// halves with a plain (non-atomic) write; between them it prints "half" and,
    /// with `--release FILE`, waits for FILE. Prints "written" once the
    /// coordination has returned (the lock is free).
    static func write() throws {
        let url = URL(fileURLWithPath: option("file"))
        let text = Data(option("text").utf8)
        let release = optionalOption("release")
        var coordinationError: NSError?
        var writeError: Error?
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: url, options: [], error: &coordinationError) { url in
            do {
                let handle = try FileHandle(forWritingTo: url.creatingIfMissing())
                defer { try? handle.close() }
                try handle.truncate(atOffset: 0)
                try handle.write(contentsOf: text.prefix(text.count / 2))
                say("half")
                if let release { while !FileManager.default.fileExists(atPath: release) { usleep(1000) } }
                try handle.write(contentsOf: text.dropFirst(text.count / 2))
            } catch {
                writeError = error
            }
        }
        if let error = coordinationError ?? writeError { fail("ns-write: \(error)") }
        say("written")
    }

    /// `ns-move --from A --to B`: a coordinated move (`.forMoving`, then
    /// `.forReplacing`), reported with item(at:didMoveTo:).
    static func move() throws {
        let from = URL(fileURLWithPath: option("from"))
        let to = URL(fileURLWithPath: option("to"))
        let coordinator = NSFileCoordinator(filePresenter: nil)
        var coordinationError: NSError?
        var moveError: Error?
        coordinator.coordinate(writingItemAt: from, options: .forMoving, writingItemAt: to, options: .forReplacing,
                               error: &coordinationError) { source, destination in
            do {
                try FileManager.default.moveItem(at: source, to: destination)
                coordinator.item(at: source, didMoveTo: destination)
            } catch {
                moveError = error
            }
        }
        if let error = coordinationError ?? moveError { fail("ns-move: \(error)") }
        say("moved")
    }

    /// `seed-save --text T` / `seed-load`: the guide's lines (SeedClipping.swift).
    static func seedSave() throws {
        try saveClipping(Data(option("text").utf8))
        say("saved")
    }

    static func seedLoad() throws {
        guard let data = try loadClipping() else { fail("no container for group.ai.systenics.notes", code: 2) }
        say("clipping: " + String(decoding: data, as: UTF8.self))
    }
}

private extension URL {
    /// The URL, after creating an empty file there when nothing is.
    func creatingIfMissing() -> URL {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        return self
    }
}
