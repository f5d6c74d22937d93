import AppGroupContainer

extension SharedDefaultsError {
    /// Runs `body`, the suite's own work, passing up what it throws as a
    /// ``SharedDefaultsError``: the suite's own errors as they are, the container's
    /// as ``fileSystem(path:reason:)`` naming `path`. The suite's code throws
    /// nothing else.
    static func passingUp<T>(path: String, _ body: () throws -> T) throws(SharedDefaultsError) -> T {
        do {
            return try body()
        } catch let error as SharedDefaultsError {
            throw error
        } catch let error as AppGroupError {
            throw .fileSystem(path: path, reason: error)
        } catch {
            // Not reached (see above); said rather than lost if it ever is.
            throw .fileSystem(path: path, reason: .invalidRoot(path: path, problem: "an unexpected \(type(of: error)): \(error)"))
        }
    }
}
