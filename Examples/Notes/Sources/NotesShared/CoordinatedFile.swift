import Foundation
#if !canImport(Darwin)
import AppGroupFoundation // NSFileCoordinator and NSFilePresenter on Linux
#endif

/// A JSON file in the group container that several targets read and change,
/// each access under NSFileCoordinator so that processes take turns.
struct CoordinatedFile<Value: Codable> {
    let url: URL
    /// What a file that does not exist yet holds.
    let empty: Value

    /// Reads the value as a coordinated reader.
    /// - Parameter presenter: the caller's own presenter of this file, if any
    ///   (a coordinator does not ask its own presenter to step aside).
    func read(presenter: NSFilePresenter? = nil) throws -> Value {
        var failure: NSError?
        var outcome: Result<Value, any Error>?
        NSFileCoordinator(filePresenter: presenter).coordinate(readingItemAt: url, options: [], error: &failure) { url in
            outcome = Result { try load(url) }
        }
        return try finish(outcome, failure)
    }

    /// Reads the value, lets `change` modify it, and writes it back, all in one
    /// coordinated write: no other process's change can fall between the read
    /// and the write, so none is lost. Nothing is written when `change` throws.
    func update<Result>(presenter: NSFilePresenter? = nil, _ change: (inout Value) throws -> Result) throws -> Result {
        var failure: NSError?
        var outcome: Swift.Result<Result, any Error>?
        NSFileCoordinator(filePresenter: presenter).coordinate(writingItemAt: url, options: .forMerging, error: &failure) { url in
            outcome = Swift.Result {
                var value = try load(url)
                let result = try change(&value)
                // Atomic: a reader that does not coordinate sees the old file or the new one.
                try JSONEncoder().encode(value).write(to: url, options: .atomic)
                return result
            }
        }
        return try finish(outcome, failure)
    }

    /// Replaces the file with `value` in one coordinated write (what was there is not read).
    func replace(with value: Value, presenter: NSFilePresenter? = nil) throws {
        var failure: NSError?
        var outcome: Swift.Result<Void, any Error>?
        NSFileCoordinator(filePresenter: presenter).coordinate(writingItemAt: url, options: .forReplacing, error: &failure) { url in
            outcome = Swift.Result { try JSONEncoder().encode(value).write(to: url, options: .atomic) }
        }
        try finish(outcome, failure)
    }

    private func load(_ url: URL) throws -> Value {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch CocoaError.fileReadNoSuchFile {
            return empty
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw NotesError.damagedFile(url, underlying: error)
        }
    }

    private func finish<T>(_ outcome: Swift.Result<T, any Error>?, _ failure: NSError?) throws -> T {
        if let failure { throw NotesError.coordinationFailed(url, underlying: failure) }
        guard let outcome else {
            // Apple's coordinator either calls the accessor or sets the error.
            throw NotesError.coordinationFailed(url, underlying: CocoaError(.fileReadUnknown))
        }
        return try outcome.get()
    }
}
