import Foundation

/// How many tests on dedicated threads run at once: as many as the machine has
/// cores (at least two), as many as the cooperative pool would have run, or
/// `APP_GROUP_TEST_SLOTS` (a positive number) to run more of them side by side, as
/// a stress run does to find tests that share state they should not. A test
/// waiting for a slot is suspended, so it holds no thread.
actor TestSlots {
    static let shared = TestSlots(count: count)

    /// `APP_GROUP_TEST_SLOTS` when it is a positive number, else the cores (at least two).
    static let count: Int = {
        if let text = ProcessInfo.processInfo.environment["APP_GROUP_TEST_SLOTS"], let value = Int(text), value > 0 { return value }
        return max(2, ProcessInfo.processInfo.activeProcessorCount)
    }()

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        free = count
    }

    /// Waits, suspended, for a free slot and takes it.
    func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a slot back: to the longest waiter, else to the free count.
    func giveBack() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
