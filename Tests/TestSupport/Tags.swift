import Testing

// The kinds of test a developer may want to run, or leave out, alone: CONTRIBUTING.md
// ("Running the tests") says how to select them. A tag says what a test does, not
// which module it tests (the test target says that); a suite's tags apply to each of
// its tests.
extension Tag {
    /// Hostile input, planted files and links, foreign processes and users: what an
    /// attacker or a damaged file system hands the code.
    @Tag package static var hostile: Self
    /// SIGKILLs (or crashes) a real process on purpose: the test is about what the
    /// kill leaves behind, or how the kill is seen (not a clean-up that kills).
    @Tag package static var killed: Self
    /// Long or repeated runs, sized by ``Load``: `APP_GROUP_SOAK=1` makes them deep.
    @Tag package static var soak: Self
    /// Spawns real processes (probes, the built executables, python3) that race this one.
    @Tag package static var multiprocess: Self
    /// Needs python3: Python's plistlib or the locking protocol's Python peer.
    @Tag package static var python: Self
    /// Seeded mutation fuzzing (`APP_GROUP_SOAK_SEED` replays a run, `APP_GROUP_SOAK_FUZZ` sets the count).
    @Tag package static var fuzz: Self
    /// Injects system-call faults or traces calls through `FaultInjection`, which
    /// exists in debug builds only.
    @Tag package static var faults: Self
}
