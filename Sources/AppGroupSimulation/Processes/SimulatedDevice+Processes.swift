import AppGroupContainer
import Foundation

// Seams for the package's own tests of how a device ends its processes and
// makes its bundles: a user's test has no reason to change either.
extension SimulatedDevice {
    /// Copies each target's executable into its bundle even where a hard link
    /// would do, as a device on another file system than the build must.
    package var installsBundlesByCopy: Bool {
        get { life.copiesBundles.withLock { $0 } }
        set { life.copiesBundles.withLock { $0 = newValue } }
    }

    /// False leaves the device's processes running when it ends, so that a test
    /// sees the leak check name them (``leakedProcesses``); true by default.
    package var endsProcessesAtRemoval: Bool {
        get { life.processes.endsProcesses }
        set { life.processes.endsProcesses = newValue }
    }
}
