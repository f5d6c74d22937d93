import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// A launched process's pipes are closed once its output has ended, not when the
/// process object goes (a test run starts thousands).
@Suite(.tags(.multiprocess), .dedicatedThreads) struct LaunchedProcessDescriptorTests {
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    @Test("300 processes run to their end while their LaunchedProcess objects live leave no pipe open")
    func endedProcessesLeaveNoPipeOpen() throws {
        var kept: [LaunchedProcess] = []
        let before = Self.openDescriptors()
        for _ in 0..<300 {
            let process = try LaunchedProcess(executable: URL(fileURLWithPath: "/bin/true"), arguments: [],
                                              environment: ProcessInfo.processInfo.environment)
            #expect(process.wait(timeout: 30).succeeded)
            kept.append(process) // alive, as in a test that keeps its processes until it ends
        }
        let after = Self.openDescriptors()
        // Other tests open and close files meanwhile: a leak here is 600 descriptors.
        #expect(after - before < 150, "\(before) descriptors before, \(after) after 300 processes")
        #expect(kept.count == 300)
    }
}
