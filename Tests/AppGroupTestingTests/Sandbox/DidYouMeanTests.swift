import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// Item 5: loud where iOS is quiet. A group id one or two edits away from a group
/// the target holds is named in the diagnostic, in the target's own process.
@Suite(.tags(.multiprocess), .simulatedDevices) struct DidYouMeanTests {
    @Test(arguments: [
        ("group.com.example.readr", "one edit"),     // a dropped letter
        ("group.com.example.raeder", "one edit"),    // two neighbours swapped
        ("group.com.exmaple.readers", "two edits"),  // a swap and an extra letter
    ])
    func aNearMissNamesTheGroupTheTargetHolds(asked: String, edits: String) async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let outcome = try await device.run(built: "SandboxProbe", ["write-group", asked, "x", "1"], as: reader.share).requireSuccess()
            #expect(outcome.outputLines == ["nil container"])
            #expect(outcome.standardError.contains("Did you mean \(ReaderTargets.group)? It is \(edits) away from \(asked)"), "\(outcome.standardError)")
        }
    }

    @Test func aGroupThreeEditsAwayGetsNoGuess() throws {
        let error = AppGroupError.notEntitled(group: "group.com.example.rdr", bundleIdentifier: "com.example.reader.share",
                                              heldGroups: [ReaderTargets.group])
        #expect(!error.description.contains("Did you mean"), "\(error)")
        let near = AppGroupError.notEntitled(group: "group.com.example.reade", bundleIdentifier: "com.example.reader.share",
                                             heldGroups: ["group.other", ReaderTargets.group])
        #expect(near.description.contains("Did you mean \(ReaderTargets.group)?"), "\(near)")
    }
}
