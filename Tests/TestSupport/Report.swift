/// Figures a test measured, printed at its end for the Reliability article; every
/// line starts with `[reliability]`, so that one grep collects a run's figures.
package func report(_ text: String) {
    print("[reliability] " + text)
}
