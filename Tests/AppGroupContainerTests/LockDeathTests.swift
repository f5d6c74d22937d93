import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport
import DeviceTestSupport

extension MultiProcess {
    @Test("lock holder death: the waiter proceeds within 1 s of the holder's SIGKILL", .tags(.killed, .soak))
    func lockHolderDeath() throws {
        let sandbox = try Sandbox()
        let deaths = Load.lockDeaths
        let lanes = 4
        let delays = Tally<[Double]>([])
        let problems = Tally<[String]>([])
        onThreads(lanes, timeout: .infinity) { lane in
            let file = sandbox.root.appendingPathComponent("item-\(lane)")
            for round in stride(from: lane, to: deaths, by: lanes) {
                do {
                    let holder = try reliabilityProbe(["hold", "--file", file.path], environment: sandbox.environment(sandbox.app))
                    guard holder.waitForOutput(containing: "locked", timeout: 60) else {
                        problems.update { $0.append("round \(round): the holder never locked: \(holder.wait(timeout: 120).standardError)") }
                        continue
                    }
                    // Half the waiters block in F_OFD_SETLKW, half poll with a deadline.
                    let coordinator = FileCoordinator(timeout: round % 2 == 0 ? nil : 30)
                    let acquired = Tally<UInt64?>(nil)
                    let done = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        do {
                            try coordinator.coordinate(writingItemAt: file) { _ in acquired.update { $0 = DispatchTime.now().uptimeNanoseconds } }
                        } catch {
                            problems.update { $0.append("round \(round): the waiter failed: \(error)") }
                        }
                        done.signal()
                    }
                    usleep(20_000)
                    if acquired.current != nil { problems.update { $0.append("round \(round): the waiter got the lock while it was held") } }
                    let killed = DispatchTime.now().uptimeNanoseconds
                    holder.kill()
                    if done.wait(timeout: .now() + 10) == .timedOut {
                        problems.update { $0.append("round \(round): the waiter still waits 10 s after the holder died") }
                    } else if let at = acquired.current {
                        delays.update { $0.append((Double(at) - Double(killed)) / 1e9) }
                    }
                    holder.wait(timeout: 120)
                } catch {
                    problems.update { $0.append("round \(round): \(error)") }
                }
            }
        }
        for problem in problems.current { Issue.record(Comment(rawValue: problem)) }
        let measured = delays.current.sorted()
        #expect(measured.count == deaths)
        #expect((measured.first ?? 0) >= 0, "a waiter got the lock before its holder died")
        let slow = measured.filter { $0 >= 1.0 }
        #expect(slow.isEmpty, "waiters that needed 1 s or more after the kill: \(slow)")
        if let worst = measured.last {
            let median = measured[measured.count / 2]
            report("lock death: \(measured.count) holders SIGKILLed; waiter proceeded after median \(Int(median * 1000)) ms, worst \(Int(worst * 1000)) ms")
        }
    }
}
