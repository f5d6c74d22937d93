// These tests call the emulator's SecItem functions; on Darwin those names are
// Apple's own, so the tests run where the Security framework is absent.
#if !canImport(Darwin)

import AppGroupTesting
import AppGroupContainer
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import SharedKeychain
import Testing
import TestSupport
import Security

/// Several processes writing one device's keychain at once.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct ConcurrencyTests {
    @Test func concurrentAddsFromSeveralProcessesKeepEveryItem() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let perProcess = 40
        let identities = [Targets.app, Targets.share, Targets.widget, Targets.app]
        let writers = try identities.enumerated().map { index, identity in
            try Probe.start(["add-many", "--prefix", "p\(index)", "--count", String(perProcess)], environment: box.environment(identity))
        }
        // Meanwhile this process adds too, through the typed layer.
        let app = box.keychain(Targets.app)
        for i in 0..<perProcess { try app.add(Data("t\(i)".utf8), for: GenericPassword(service: "race", account: "test-\(i)")) }
        for writer in writers {
            let result = ProbeResult(writer.wait(timeout: 120))
            #expect(result.stdout == "added=\(perProcess)", "\(result.stderr)")
        }
        let total = perProcess * (identities.count + 1)
        #expect(try box.device.itemCount() == total)
        // Every item is there and readable by a sibling process (all went to the shared default group).
        #expect(try Probe.run(["count"], box.environment(Targets.widget)).stdout == "visible=\(total)")
        for index in identities.indices {
            for i in [0, perProcess - 1] {
                #expect(try app.read(GenericPassword(service: "race", account: "p\(index)-\(i)")) == Data("v\(i)".utf8))
            }
        }
    }

    @Test(.tags(.killed)) func writerKilledWhileHoldingTheLockDoesNotBlockOthers() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try app.add(Data("before".utf8), for: GenericPassword(service: "s", account: "before"))
        let holder = try Probe.start(["hold-lock"], environment: box.environment(Targets.app))
        #expect(holder.waitForOutput(containing: "locked", timeout: 30))
        // While it holds the lock, a writer with a short timeout fails with errSecIO...
        var impatient = app
        impatient.coordinationTimeout = 0.2
        do {
            try impatient.add(Data("x".utf8), for: GenericPassword(service: "s", account: "x"))
            Issue.record("an add succeeded while another process held the write lock")
        } catch let error as SharedKeychain.KeychainError {
            #expect(error.status == errSecIO)
            #expect(error.description.contains("timed out"))
        }
        // ...readers are not blocked (atomic renames)...
        #expect(try app.read(GenericPassword(service: "s", account: "before")) == Data("before".utf8))
        // ...and once it is killed, the kernel drops its lock.
        holder.kill()
        holder.wait(timeout: 120)
        try app.add(Data("after".utf8), for: GenericPassword(service: "s", account: "after"))
        #expect(try box.device.itemCount() == 2)
    }
}

#endif
