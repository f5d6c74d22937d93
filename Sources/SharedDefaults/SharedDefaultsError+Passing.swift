import AppGroupContainer

extension SharedDefaultsError {
    /// Runs `body`, the suite's own work, passing up what it throws as a
    /// ``SharedDefaultsError``: the suite's own errors as they are, the container's
    /// as ``fileSystem(path:reason:)`` naming `path`. The suite's code throws
    /// nothing else. `path` is made only for an error: `URL.path` cost a twentieth
    /// of a read after another process's save.
    static func passingUp<T>(path: @autoclosure () -> String, _ body: () throws -> T) throws(SharedDefaultsError) -> T {
        do {
            return try body()
        } catch let error as SharedDefaultsError {
            throw error
        } catch let error as AppGroupError {
            throw .fileSystem(path: path(), reason: error)
        } catch {
            // Not reached (see above); said rather than lost if it ever is.
            let path = path()
            throw .fileSystem(path: path, reason: .invalidRoot(path: path, problem: "an unexpected \(type(of: error)): \(error)"))
        }
    }
}
