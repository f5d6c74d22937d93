import Foundation

/// The fuzz tests' mutator: seeded, so that a run replays from its seed
/// (`APP_GROUP_SOAK_SEED`), and the same for every reader fuzzed.
package enum Mutation {
    /// One mutation of a corpus entry: bit flips, a truncation, a splice of two
    /// entries, an inserted or deleted run, or a byte set to a boundary value.
    package static func mutate(_ corpus: [Data], _ rng: inout SeededGenerator) -> Data {
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
    package static func keepForReplay(_ input: Data) {
        guard let path = Load.environment["APP_GROUP_FUZZ_LAST"] else { return }
        try? input.write(to: URL(fileURLWithPath: path))
    }
}
