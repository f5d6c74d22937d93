import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// Mutation fuzzing of the entitlements reader, a reader that takes files from disk
/// (the suite-file parser: SharedDefaultsTests' SuiteReaderFuzzTests). Fixed seed
/// (APP_GROUP_SOAK_SEED replays another); the input that broke a run is written to
/// standard output.
@Suite("Fuzzing: the entitlements reader", .tags(.fuzz, .soak), .dedicatedThreads)
struct EntitlementsReaderFuzzTests {
    @Test("the entitlements reader survives mutated inputs: an identity or a typed error, never a crash")
    func entitlementsReader() throws {
        let corpus = FuzzCorpus.entitlements
        #expect(corpus.count == 6)
        var rng = SeededGenerator(seed: Load.seed ^ 0xE7)
        var accepted = 0
        var refused = 0
        for i in 0..<Load.fuzzInputs {
            let input = Mutation.mutate(corpus, &rng)
            Mutation.keepForReplay(input)
            do {
                let identity = try Entitlements(propertyList: input, source: "fuzz-\(i)", teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes")
                accepted += 1
                // Whatever is accepted is safe to resolve: every group is one path component.
                for group in identity.applicationGroups {
                    #expect(!group.rawValue.contains("/") && group.rawValue != ".." && !group.rawValue.isEmpty, "input \(i): \(group.rawValue)")
                }
            } catch {
                refused += 1
                guard case AppGroupError.invalidEntitlements(let source, _, _)? = error as? AppGroupError, source == "fuzz-\(i)" else {
                    Issue.record("input \(i): \(error)")
                    continue
                }
            }
        }
        report("fuzz entitlements reader: \(Load.fuzzInputs) mutated inputs (seed \(Load.seed ^ 0xE7)), \(accepted) accepted, \(refused) refused with a typed error, 0 crashes")
    }
}
