import AppGroupTesting
import Testing

/// The tests of this target that race child processes run in this one serialized
/// suite, as AppGroupContainerTests' do in theirs: the liveness deadlines then
/// measure the code under test, not a crowd of sibling tests on two cores.
@Suite("Apple's names across processes", .serialized, .dedicatedThreads)
struct MultiProcess {}
