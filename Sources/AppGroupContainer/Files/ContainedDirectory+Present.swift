import AppGroupSystem

extension ContainedDirectory {
    /// `open(_:below:)` of the directory at `path`, nil when nothing is there (a
    /// reader's "no file yet"); the system layer's other errors as the container's.
    static func openIfPresent(_ path: String, below root: ContainerRoot?) throws(AppGroupError) -> ContainedDirectory? {
        do {
            return try ContainedDirectory.open(path, below: root?.path)
        } catch .call(_, _, let code) where code == .ENOENT {
            return nil
        } catch {
            throw AppGroupError(error)
        }
    }
}
