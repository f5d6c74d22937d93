// The App Groups guide's file-sharing lines (Apple's platform guides: "write into
// the group's directory instead and pass only the filename", then "coordinate the
// access with NSFileCoordinator"), kept as iOS code writes them. Lines changed
// from iOS, and why:
//   + import AppGroupContainer   (on iOS, Foundation alone declares containerURL
//                                 and NSFileCoordinator; on Linux this module does)
// Nothing else differs.
import AppGroupContainer
import AppGroupFoundation
import Foundation

/// The share extension's side: the clipping goes into the group's container,
/// its write coordinated with the app's reads.
func saveClipping(_ data: Data) throws {
    guard let container = FileManager.default.containerURL(
        forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes"
    ) else { return }

    let fileURL = container.appendingPathComponent("clipping.json")
    var coordinationError: NSError?
    var writeError: Error?
    NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: fileURL, options: .forReplacing, error: &coordinationError) { url in
        do {
            try data.write(to: url)
        } catch {
            writeError = error
        }
    }
    if let error = coordinationError ?? writeError { throw error }
}

/// The app's side: the same file, read under a coordinated read.
func loadClipping() throws -> Data? {
    guard let container = FileManager.default.containerURL(
        forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes"
    ) else { return nil }

    let fileURL = container.appendingPathComponent("clipping.json")
    var coordinationError: NSError?
    var result: Result<Data, Error>?
    NSFileCoordinator(filePresenter: nil).coordinate(readingItemAt: fileURL, options: [], error: &coordinationError) { url in
        result = Result { try Data(contentsOf: url) }
    }
    if let coordinationError { throw coordinationError }
    return try result?.get()
}
