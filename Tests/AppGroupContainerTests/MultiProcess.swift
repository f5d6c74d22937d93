import AppGroupTesting
import Testing

/// Every test that races child processes, or makes process-wide changes (fault
/// injection), runs in this one serialized suite: the liveness deadlines then
/// measure the code under test, not a crowd of sibling tests on two cores.
@Suite("Multi-process and process-wide state", .serialized, .dedicatedThreads)
struct MultiProcess {}
