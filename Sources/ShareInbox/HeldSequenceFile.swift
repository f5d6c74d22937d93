import AppGroupContainer
import Foundation

/// The inbox's `Sequence` file kept open across one instance's journal enqueues:
/// opening and closing it at each one was three system calls of fifteen. Before
/// each use, one lstat through the enqueue's walked descriptor checks that
/// `Sequence` still names the open file; a file replaced, removed or set aside is
/// opened again. Used under the journal writer's mutex, one enqueue at a time.
final class HeldSequenceFile: Sendable {
    private struct Held {
        let file: OpenFile
        let device: UInt64
        let inode: UInt64
    }

    private let held = Locked<Held?>(nil)

    deinit { held.withLock { $0?.file.close() } }

    /// The open `Sequence` file of `inbox` (the walked directory), opened (made when
    /// missing) when none is held or the name now stands for another file; `open`
    /// opens it (and repairs what is planted there).
    func file(in inbox: DirectoryHandle, open: () throws -> OpenFile) throws -> OpenFile {
        try held.withLock { slot in
            let named = try? inbox.inodeIdentity(of: "Sequence")
            if let current = slot, let named, named.device == current.device, named.inode == current.inode {
                return current.file
            }
            slot?.file.close()
            slot = nil
            let file = try open()
            do {
                let identity = try file.currentIdentity()
                slot = Held(file: file, device: identity.device, inode: identity.inode)
            } catch {
                file.close()
                throw error
            }
            return file
        }
    }
}
