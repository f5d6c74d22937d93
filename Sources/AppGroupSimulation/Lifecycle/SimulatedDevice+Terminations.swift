import Foundation

extension SimulatedDevice {
    /// The file a kept device's terminations are written to, in ``directory``.
    public static let terminationsFileName = "terminations.txt"

    /// What ``remove()`` does with the terminations: a failed test's output shows
    /// them (standard error, where the test's failure is), and a kept device keeps
    /// them in ``terminationsFileName``, so that a 0xdead10cc or a jetsam kill that
    /// made a test fail is read beside the failure.
    func reportTerminations(failed: Bool, kept: Bool) {
        let reports = terminations
        guard !reports.isEmpty, failed || kept else { return }
        let text = reports.enumerated().map { "termination \($0.offset + 1): \($0.element)" }.joined(separator: "\n") + "\n"
        if failed {
            FileHandle.standardError.write(Data(("AppGroupTesting: the targets of the simulated device at \(directory.path) ended so:\n" + text).utf8))
        }
        if kept {
            try? Data(text.utf8).write(to: directory.appendingPathComponent(Self.terminationsFileName))
        }
    }
}
