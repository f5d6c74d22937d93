/// The package's version, as its executables print it for `--version`.
///
/// Semantic versioning: the package is pre-1.0, so a minor release may still
/// change public API. Bumped by hand with each tagged release.
package enum AppGroupContainerVersion {
    /// "0.1.0".
    package static let string = "0.1.0"
}
