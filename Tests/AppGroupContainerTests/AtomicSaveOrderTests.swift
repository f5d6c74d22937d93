import AppGroupSystem
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
@testable import AppGroupContainer

/// The order of an atomic save's system calls, from a trace of the seam (the seam
/// itself: IntegrationTests' SystemCallSeamTests).
@Suite("System-call order: an atomic save", .tags(.faults), .dedicatedThreads)
struct AtomicSaveOrderTests {
    @Test("an atomic save: the temporary is written and fsynced before the rename, the directory fsynced after it")
    func atomicSaveOrder() throws {
        let sandbox = try Sandbox()
        let file = sandbox.root.appendingPathComponent("file")
        let target = file.standardizedFileURL.path
        let directory = sandbox.root.standardizedFileURL.path
        let (calls, _) = try FaultInjection.trace { try AtomicFile.write(Data("content".utf8), to: file, below: .marked(above: file)) }
        let write = Trace.first(calls) { $0.call == .write && Trace.isTemporary($0.path) }
        let fileSync = Trace.first(calls) { $0.call == .fsync && Trace.isTemporary($0.path) }
        let rename = Trace.first(calls) { $0.call == .renameat && $0.path == target }
        let directorySync = Trace.last(calls) { $0.call == .fsync && $0.path == directory }
        #expect(write < fileSync, "\(calls)")
        #expect(fileSync < rename, "the temporary's fsync comes before the rename: \(calls)")
        #expect(rename < directorySync, "the directory's fsync comes after the rename: \(calls)")
        #expect(calls.allSatisfy { $0.injected == nil })
    }
}
