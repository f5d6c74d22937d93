import AppGroupContainer
import AppGroupFoundation
import Foundation

/// Part of case 10: a coordinated write in this process while a child presents the
/// item, so that each write asks it first (`relinquishPresentedItem(toWriter:)`,
/// answered at once) over its socket: the time a remote
/// presenter adds to a write.
func remotePresenterSamples(_ run: BenchmarkRun, root: URL, table: SignalTable) throws -> [Sample] {
    let item = root.appendingPathComponent("presented.txt")
    try Data("0".utf8).write(to: item)
    let ready = DispatchSemaphore(value: 0)
    let readiness = table.observe("presenter.ready") { ready.signal() }
    defer { readiness.cancel() }
    let child = try run.spawnSelf(["child", "presenter", "--root", root.path, "--item", item.path])
    defer {
        table.post("presenter.stop")
        _ = try? run.wait(child)
    }
    guard ready.wait(timeout: .now() + 30) == .success else { throw BenchmarkError.usage("presenter child never registered") }
    let writes = run.count(300)
    var times: [UInt64] = []
    for _ in 0..<writes {
        var error: NSError?
        let start = now()
        NSFileCoordinator().coordinate(writingItemAt: item, options: [], error: &error) { _ in }
        if error == nil { times.append(now() - start) }
    }
    return [Sample(name: "coordinated write with one presenter in another process (asked first), \(writes) writes", nanoseconds: times)]
}

/// Child role: `presenter --root R --item F`: presents F (answering every request
/// at once), posts "presenter.ready", and ends when "presenter.stop" is posted (or
/// two minutes pass).
func presenterChild(_ options: Options) throws {
    let table = try SignalTable.forDevice(root: ContainerRoot(try BenchIdentity.root(options)))
    let presenter = QuietPresenter(URL(fileURLWithPath: try options.string("item")))
    NSFileCoordinator.addFilePresenter(presenter)
    defer { NSFileCoordinator.removeFilePresenter(presenter) }
    let done = DispatchSemaphore(value: 0)
    let stop = table.observe("presenter.stop") { done.signal() }
    table.post("presenter.ready")
    _ = done.wait(timeout: .now() + 120)
    stop.cancel()
}

/// A presenter that answers with Apple's defaults (relinquish at once, nothing to save).
private final class QuietPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()

    init(_ url: URL) { presentedItemURL = url }
}
