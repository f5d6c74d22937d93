import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedDefaults
import Testing
import TestSupport

/// Mutation fuzzing of the suite-file parser, a reader that takes files from disk
/// (the entitlements reader: AppGroupContainerTests' EntitlementsReaderFuzzTests).
/// Fixed seed (APP_GROUP_SOAK_SEED replays another); the input that broke a run is
/// written to standard output.
@Suite("Fuzzing: the suite-file reader", .tags(.fuzz, .soak), .dedicatedThreads)
struct SuiteReaderFuzzTests {
    @Test("the suite-file reader survives mutated inputs: a dictionary or a corrupt-suite diagnosis, never a crash")
    func suiteReader() throws {
        let corpus = FuzzCorpus.suites
        #expect(corpus.count == 8)
        var rng = SeededGenerator(seed: Load.seed)
        var parsed = 0
        var refused = 0
        for i in 0..<Load.fuzzInputs {
            let input = Mutation.mutate(corpus, &rng)
            Mutation.keepForReplay(input)
            switch SuiteStore.parse(input) {
            case .success(let values):
                parsed += 1
                // What parses must be storable again, unchanged.
                let again = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
                guard case .success(let reread) = SuiteStore.parse(again), PropertyListValue.equal(reread, values) else {
                    Issue.record("input \(i) parsed but does not survive a save: \(input.base64EncodedString())")
                    continue
                }
            case .failure(let problem):
                refused += 1
                #expect(!problem.text.isEmpty)
            }
        }
        report("fuzz suite reader: \(Load.fuzzInputs) mutated inputs (seed \(Load.seed)), \(parsed) parsed, \(refused) diagnosed corrupt, 0 crashes")
    }
}
