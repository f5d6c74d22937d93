import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// A signal's post and its delivery are coordinated steps of an
/// exploring device. The ordering bug: the share extension posts its Darwin
/// notification before it saves the note, and the app, woken, reads the old one.
/// An ordinary run shows it when the app's read lock happens to come before the
/// extension's write lock (16 of 30 runs here); exploration chooses that order on
/// a schedule each seed names, and the seed replays it step for step.
/// Real processes: the app and its extension, each a SignalProbe.
@Suite(.tags(.multiprocess), .serialized, .dedicatedThreads)
struct SignalExplorationTests {
    /// The test body: the app observes; the extension saves the note "new" and
    /// posts (or posts first); the app must have read "new" when told, or the
    /// device records a failure (which fails the schedule).
    static func shareANote(_ device: SimulatedDevice, postFirst: Bool) throws {
        let notes = try NotesExample()
        let container = try notes.groupContainer(on: device)
        let note = container.appendingPathComponent("note.txt").path
        let app = try device.launch(built: "SignalProbe", ["note-app", "--file", note], as: notes.app)
        try #require(app.waitForLine("ready", timeout: 60), "\(app.standardError)")
        let share = try device.launch(built: "SignalProbe", ["note-extension", "--file", note, "--text", "new",
                                                             "--post-first", postFirst ? "yes" : "no"], as: notes.shareExtension)
        try share.wait(timeout: 60).requireSuccess()
        let end = try app.wait(timeout: 60).requireSuccess()
        let read = end.outputLines.first { $0.hasPrefix("read ") }.map { String($0.dropFirst(5)) } ?? "(nothing)"
        if read != "new" { device.recordFailure("the app was told of the new note and read \"\(read)\"") }
    }

    @Test("a post made before the save is found within 20 schedules for each of 5 seeds, and its seed and its schedule file replay the same steps")
    func findsThePostBeforeTheSave() throws {
        var found: [Int] = []
        for seed in UInt64(1)...5 {
            do {
                try SimulatedDevice.explore(schedules: 20, strategy: .random, seed: seed, name: "NoteSignal") { try Self.shareANote($0, postFirst: true) }
                Issue.record("seed \(seed): 20 schedules passed the post made before the save")
            } catch SimulationError.exploration(let failure) {
                found.append(failure.index)
                #expect(failure.failure.contains("read \"\""), "\(failure)")
                // The bad order: the app's delivery granted before the extension's write lock.
                let delivery = failure.schedule.firstIndex { $0.contains("signal delivery com.example.notes.didChange") }
                let write = failure.schedule.firstIndex { $0.contains("NotesShare: write lock") }
                #expect(delivery != nil && write != nil && delivery! < write!, "\(failure.schedule)")
                if seed == 1 {
                    print(failure)
                    // The same seed, the same order of posts, deliveries and locks.
                    let replayed = try #require(expectSimulationError(\.exploration) {
                        try SimulatedDevice.explore(schedules: 1, strategy: .random, seed: failure.seed, name: "NoteSignal") {
                            try Self.shareANote($0, postFirst: true)
                        }
                    })
                    #expect(replayed.schedule == failure.schedule)
                    // And its schedule file: the same steps again (another order would be a ScheduleFileError).
                    let file = try #require(failure.scheduleFile)
                    defer { try? FileManager.default.removeItem(at: file) }
                    expectSimulationError(\.exploration) {
                        try SimulatedDevice.explore(replaying: file, name: "NoteSignal") { try Self.shareANote($0, postFirst: true) }
                    }
                    if let other = replayed.scheduleFile, other != file { try? FileManager.default.removeItem(at: other) }
                } else if let file = failure.scheduleFile {
                    try? FileManager.default.removeItem(at: file)
                }
            }
        }
        print("exploration (random) of the post made before the save: schedules to the first failure over 5 seeds: \(found)")
    }

    @Test("the save made before the post passes every schedule, and posts and deliveries are steps of it")
    func theSaveBeforeThePostPasses() throws {
        let report = try SimulatedDevice.explore(schedules: 6, strategy: .random, seed: 42, name: "NoteSignal") { try Self.shareANote($0, postFirst: false) }
        #expect(report.schedules == 6)
        let steps = report.lastSchedule
        #expect(steps.contains { $0.contains("NotesShare: signal post com.example.notes.didChange") }, "\(steps)")
        #expect(steps.contains { $0.contains("Notes: signal delivery com.example.notes.didChange") }, "\(steps)")
        print("exploration of the note: \(report.schedules) schedules, \(report.steps) steps, \(String(format: "%.2f", report.schedulesPerSecond)) schedules per second")
    }
}
