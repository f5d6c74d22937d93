import Foundation
import AppGroupContainer

/// Making a directory of a device that two launches may make at once.
///
/// Two instances of one target started side by side (two share extensions, a test's
/// `async let`s) make the same data container, bundle and keychain folder together.
/// FileManager checks, then makes: the loser of that race fails with "file exists".
/// Here a directory is made first and checked after, so an existing directory is
/// success and anything else standing there (a file, a symbolic link) is refused.
enum RaceFreeDirectory {
    /// Makes `url` (and, with `intermediates`, its missing parents) with `mode`,
    /// unless a real directory is there already.
    /// - Throws: `AppGroupError.unsafePath` when something other than a directory
    ///   stands at `url`; FileManager's error when it cannot be made.
    static func make(_ url: URL, intermediates: Bool, mode: Int) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: intermediates,
                                                    attributes: [.posixPermissions: mode])
            return
        } catch let error as CocoaError where error.code == .fileWriteFileExists {
            // Something stands there: fine if it is a directory, not a link to one.
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)
        guard exists, isDirectory.boolValue, link == nil else {
            throw AppGroupError.unsafePath(path: url.path, problem: "expected a directory of the simulated device; remove what stands there")
        }
    }
}
