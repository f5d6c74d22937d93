import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedDefaults
import Testing

/// Mutation fuzzing of the two readers that take files from disk: the suite-file
/// parser and the entitlements reader. Fixed seed (APP_GROUP_SOAK_SEED replays
/// another); the input that broke a run is written to standard output.
@Suite("Fuzzing", .dedicatedThreads)
struct FuzzTests {
    /// One mutation of a corpus entry: bit flips, a truncation, a splice of two
    /// entries, an inserted or deleted run, or a byte set to a boundary value.
    static func mutate(_ corpus: [Data], _ rng: inout SeededGenerator) -> Data {
        var bytes = [UInt8](corpus[Int.random(in: 0..<corpus.count, using: &rng)])
        let rounds = Int.random(in: 1...3, using: &rng)
        for _ in 0..<rounds {
            if bytes.isEmpty { bytes = [UInt8](corpus[0]) }
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    // Binary plists keep their offset table at the end: aim there half the time.
                    let index = Bool.random(using: &rng) ? Int.random(in: 0..<bytes.count, using: &rng)
                                                         : max(0, bytes.count - 1 - Int.random(in: 0..<min(40, bytes.count), using: &rng))
                    bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
                }
            case 1:
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
            case 2:
                let other = [UInt8](corpus[Int.random(in: 0..<corpus.count, using: &rng)])
                let cut = Int.random(in: 0...bytes.count, using: &rng)
                let from = Int.random(in: 0...other.count, using: &rng)
                bytes = Array(bytes[..<cut]) + Array(other[from...])
            case 3:
                let at = Int.random(in: 0...bytes.count, using: &rng)
                let run = (0..<Int.random(in: 1...16, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                bytes.insert(contentsOf: run, at: at)
            case 4:
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...16, using: &rng)))
            default:
                let boundary: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x3C, 0x3E, 0x0F, 0xD0, 0xA0]
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = boundary[Int.random(in: 0..<boundary.count, using: &rng)]
            }
        }
        return Data(bytes)
    }

    /// With APP_GROUP_FUZZ_LAST=<path>, each input is written there before it is
    /// parsed: after a crash the file holds the input that caused it.
    static func keepForReplay(_ input: Data) {
        guard let path = Load.environment["APP_GROUP_FUZZ_LAST"] else { return }
        try? input.write(to: URL(fileURLWithPath: path))
    }

    @Test("the suite-file reader survives mutated inputs: a dictionary or a corrupt-suite diagnosis, never a crash")
    func suiteReader() throws {
        let corpus = FuzzCorpus.suites
        #expect(corpus.count == 8)
        var rng = SeededGenerator(seed: Load.seed)
        var parsed = 0
        var refused = 0
        for i in 0..<Load.fuzzInputs {
            let input = Self.mutate(corpus, &rng)
            Self.keepForReplay(input)
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

    @Test("the entitlements reader survives mutated inputs: an identity or a typed error, never a crash")
    func entitlementsReader() throws {
        let corpus = FuzzCorpus.entitlements
        #expect(corpus.count == 6)
        var rng = SeededGenerator(seed: Load.seed ^ 0xE7)
        var accepted = 0
        var refused = 0
        for i in 0..<Load.fuzzInputs {
            let input = Self.mutate(corpus, &rng)
            Self.keepForReplay(input)
            do {
                let identity = try Entitlements(propertyList: input, source: "fuzz-\(i)", teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes")
                accepted += 1
                // Whatever is accepted is safe to resolve: every group is one path component.
                for group in identity.applicationGroups {
                    #expect(!group.rawValue.contains("/") && group.rawValue != ".." && !group.rawValue.isEmpty, "input \(i): \(group.rawValue)")
                }
            } catch let error as AppGroupError {
                refused += 1
                guard case .invalidEntitlements(let source, _, _) = error, source == "fuzz-\(i)" else {
                    Issue.record("input \(i): \(error)")
                    continue
                }
            }
        }
        report("fuzz entitlements reader: \(Load.fuzzInputs) mutated inputs (seed \(Load.seed ^ 0xE7)), \(accepted) accepted, \(refused) refused with a typed error, 0 crashes")
    }
}
