// Only SharedDefaults is imported: through it, AppGroupContainer (containerURL,
// NSFileCoordinator) and Foundation are reachable, extension members included,
// under MemberImportVisibility.
import SharedDefaults
import Testing

@Suite("Import visibility: one product import")
struct OneProductImport {
    @Test("containerURL and NSFileCoordinator through `import SharedDefaults` alone")
    func throughSharedDefaults() {
        #expect(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "not a group") == nil)
        // A directory of its own: the lock file lives beside the item.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("one-import-\(UUID().uuidString)")
        #expect((try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("item")
        var error: NSError?
        var wrote = false
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: file, options: [], error: &error) { url in
            wrote = (try? Data("x".utf8).write(to: url)) != nil
        }
        #expect(error == nil && wrote)
    }
}
