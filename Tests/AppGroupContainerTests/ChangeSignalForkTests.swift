@testable import AppGroupContainer
import AppGroupSystem
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The class of the share inbox's fork-inherited lock, for the presenters' signal
/// files: a child forked by another thread (a spawn, until its exec) holds a copy
/// of every descriptor, and with it the OFD lock of its open file description. A
/// signal file's lock let go of only by closing the descriptor stayed held by the
/// child, and the next writer gave up after its patience: a change record lost.
@Suite("A child forked while a signal file was locked", .tags(.hostile, .multiprocess, .faults), .dedicatedThreads)
struct ChangeSignalForkTests {
    final class Box: @unchecked Sendable {
        // @unchecked: set once, by the one thread that posts, and read after.
        var child: ForkedChild?
    }

    @Test("a child forked while a change record is written keeps a copy of the locked descriptor: the next record is still written and read")
    func childKeepsCopyOfLockedSignalFile() throws {
        try withTemporaryDirectory { dir in
            let item = dir.appendingPathComponent("note.txt").path
            try ChangeSignal.create(forItemPath: item)
            let signal = try #require(ChangeSignal.signalPath(forItemPath: item))
            let folder = (signal as NSString).deletingLastPathComponent
            let box = Box()
            defer { box.child?.release() }
            // Forked while the first post holds the signal file's exclusive lock (its read).
            FaultInjection.with({ call, path in
                if call == .read && path == signal && box.child == nil {
                    box.child = try? ForkedChild(keepingDescriptorsUnder: folder)
                }
                return nil
            }) {
                ChangeSignal.post(.change, itemPath: item, excluding: 0)
            }
            #expect(box.child != nil, "the child was forked inside the locked region")
            ChangeSignal.post(.change, itemPath: item, excluding: 0)
            #expect(ChangeSignal.records(at: signal)?.count == 2, "both records written, and the file readable, while the child lives")
        }
    }
}
