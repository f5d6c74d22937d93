import AppGroupContainer
import notify
import AppGroupTesting
import AppGroupSystem
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
import XCTest

/// The Darwin notify center and notify(3) across real processes: the extension
/// posts, the running app wakes. The two public shapes (a capture store that posts
/// after saving, a wrapper that registers with Unmanaged) are SignalProbe's
/// CaptureStore.swift and DarwinWrapper.swift.
@Suite("The Darwin notify center across processes", .tags(.multiprocess))
struct DarwinNotifyCenterTests {
    @Test func theWrapperInTheRunningAppWakesWhenTheExtensionPosts() throws {
        try withTemporaryDirectory { root in
            let device = ["APP_GROUP_CONTAINERS_ROOT": root.path]
            try withSignalProbes { probes in
                let app = try SignalProbe.start(["wrapper", "--name", "com.example.notes.changed"], environment: device)
                probes.append(app)
                #expect(app.waitForLine("ready"))
                try SignalProbe.run(["wrapper-post", "--name", "com.example.notes.changed"], environment: device)
                #expect(app.waitForLine("woke com.example.notes.changed"), "stderr: \(app.standardError)")
                // Another name wakes nothing.
                try SignalProbe.run(["wrapper-post", "--name", "com.example.other"], environment: device)
                try SignalProbe.run(["wrapper-post", "--name", "com.example.notes.changed"], environment: device)
                #expect(eventually(seconds: 30) { SignalProbe.deliveries(app, prefix: "woke") == 2 })
                #expect(!app.outputLines.contains("woke com.example.other"))
            }
        }
    }

    @Test func theCaptureStoresAppReloadsAfterTheExtensionSaves() throws {
        try withTemporaryDirectory { root in
            let group = "group.com.example.captures"
            let identity = ["APP_GROUP_CONTAINERS_ROOT": root.path, "APP_GROUP_APPLICATION_GROUPS": group,
                            "APP_GROUP_TEAM_ID": "A1B2C3D4E5"]
            try withSignalProbes { probes in
                var app = identity
                app["APP_GROUP_APPLICATION_IDENTIFIER"] = "A1B2C3D4E5.com.example.captures"
                let running = try SignalProbe.start(["capture-app", "--group", group], environment: app)
                probes.append(running)
                #expect(running.waitForLine("ready"), "stderr: \(running.standardError)")
                var share = identity
                share["APP_GROUP_APPLICATION_IDENTIFIER"] = "A1B2C3D4E5.com.example.captures.share"
                try SignalProbe.run(["capture-extension", "--group", group, "--text", "a-link"], environment: share)
                #expect(running.waitForLine("reloaded 1 a-link"), "app: \(running.outputLines) \(running.standardError)")
            }
        }
    }

    @Test("a suspended app hears nothing until resumed, then one notice per name", .tags(.killed))
    func suspendedAppGetsOneNotice() throws {
        try withTemporaryDirectory { root in
            let device = ["APP_GROUP_CONTAINERS_ROOT": root.path]
            try withSignalProbes { probes in
                let app = try SignalProbe.start(["notify-app", "--name", "com.example.sync"], environment: device)
                probes.append(app)
                #expect(app.waitForLine { $0.hasPrefix("ready ") } != nil)
                app.kill(SIGSTOP)
                #expect(eventually(seconds: 10) { ProcessState.isStopped(app.processIdentifier) })
                for _ in 0..<5 {
                    let posted = try SignalProbe.run(["notify-post", "--name", "com.example.sync"], environment: device)
                    #expect(posted.outputLines == ["status 0"])
                }
                #expect(SignalProbe.deliveries(app, prefix: "token") == 0)
                app.kill(SIGCONT)
                #expect(app.waitForLine { $0.hasPrefix("token ") } != nil)
                try SignalProbe.run(["notify-post", "--name", "com.example.sync"], environment: device)
                #expect(eventually(seconds: 30) { SignalProbe.deliveries(app, prefix: "token") == 2 })
                app.kill(SIGSTOP)
                #expect(SignalProbe.deliveries(app, prefix: "token") == 2, "\(app.outputLines)")
            }
        }
    }
}

/// Bad names get Apple's status codes (they are refused before any device is reached).
@Suite("notify(3) refuses bad input with Apple's status codes", .tags(.hostile))
struct NotifyBadInputTests {
    @Test func badNames() {
        #expect(notify_post("") == NOTIFY_STATUS_INVALID_NAME)
        #expect(notify_post(nil) == NOTIFY_STATUS_INVALID_NAME)
        #expect(notify_post(String(repeating: "n", count: 1_025)) == NOTIFY_STATUS_INVALID_NAME)
        let notUTF8: [CChar] = [0x61, -1, -2, 0]
        #expect(notUTF8.withUnsafeBufferPointer { notify_post($0.baseAddress) } == NOTIFY_STATUS_INVALID_NAME)
        var token: Int32 = 0
        #expect(notify_register_dispatch("", &token, .main) { _ in } == NOTIFY_STATUS_INVALID_NAME)
        #expect(notify_register_dispatch("x", nil, .main) { _ in } == NOTIFY_STATUS_NULL_INPUT)
        #expect(notify_cancel(987_654) == NOTIFY_STATUS_INVALID_TOKEN)
        var check: Int32 = 0
        #expect(notify_check(987_654, &check) == UInt32(NOTIFY_STATUS_INVALID_TOKEN))
    }
}

/// The CF functions return nothing: a bad name is reported (stderr, as every
/// diagnostic of the package) and ignored, and nothing reaches the table.
@Suite("The Darwin center reports bad names and posts nothing", .tags(.hostile, .multiprocess))
struct DarwinCenterBadNameTests {
    @Test func emptyAndOverLongNamesAreReportedAndIgnored() throws {
        try withTemporaryDirectory { root in
            let device = ["APP_GROUP_CONTAINERS_ROOT": root.path]
            let long = String(repeating: "n", count: 1_025)
            try withSignalProbes { probes in
                let app = try SignalProbe.start(["wrapper", "--name", long, "--seconds", "5"], environment: device)
                probes.append(app)
                #expect(app.waitForLine("ready"))
                #expect(eventually(seconds: 30) { app.standardError.contains("no observer was added") }, "\(app.standardError)")
                for name in ["", long] {
                    let post = try SignalProbe.run(["wrapper-post", "--name", name], environment: device)
                    #expect(post.standardError.contains("was not posted"), "\(post.standardError)")
                }
                let table = try SignalTable.forDevice(root: ContainerRoot(root))
                #expect(table.namesInUse == 0, "a refused name claimed a slot")
            }
        }
    }
}

/// The wrapper shape in XCTest's form.
final class DarwinNotifyCenterXCTests: XCTestCase {
    func testTheExtensionPostsAndTheRunningAppWakes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("darwin-xctest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let device = ["APP_GROUP_CONTAINERS_ROOT": root.path]
        try withSignalProbes { probes in
            let app = try SignalProbe.start(["wrapper", "--name", "group.sync"], environment: device)
            probes.append(app)
            XCTAssertTrue(app.waitForLine("ready"))
            let post = try SignalProbe.start(["wrapper-post", "--name", "group.sync"], environment: device)
            XCTAssertTrue(post.wait(timeout: 60).succeeded)
            XCTAssertTrue(app.waitForLine("woke group.sync"), app.standardError)
        }
    }
}
