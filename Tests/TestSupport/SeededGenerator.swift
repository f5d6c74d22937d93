/// SplitMix64: a small deterministic random number generator, so that a fuzz or
/// race test that fails can be replayed from its seed. A test fixture, not API: it
/// left AppGroupSimulation's public surface for this target.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    package private(set) var state: UInt64

    /// Starts the sequence at `seed`; equal seeds give equal sequences.
    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
