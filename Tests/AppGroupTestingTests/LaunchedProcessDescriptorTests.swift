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
        // Other tests open and close files meanwhile (169 more at one look, under a CPU
        // hog in CI): the least of up to 20 looks over 2 s, the 300 objects still alive,
        // tells them from a leak, which is 600 descriptors and stays.
        var after = Self.openDescriptors()
        for _ in 0..<20 where after - before >= 150 {
            Thread.sleep(forTimeInterval: 0.1)
            after = min(after, Self.openDescriptors())
        }
        #expect(after - before < 150, "\(before) descriptors before, \(after) after 300 processes (the least of the looks)")
        #expect(kept.count == 300)
    }
}
