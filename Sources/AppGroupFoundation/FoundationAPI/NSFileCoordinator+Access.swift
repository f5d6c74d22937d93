#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// The steps every coordination takes: validate the items, ask the presenters,
/// take the locks, run the accessor as their holder, signal the writes, release,
/// give the presenters their items back.
extension NSFileCoordinator {
    /// One item of a coordination: read or written, with its options.
    struct Access {
        let url: URL
        let reading: ReadingOptions?
        let writing: WritingOptions?

        init(url: URL, reading: ReadingOptions) { (self.url, self.reading, self.writing) = (url, reading, nil) }
        init(url: URL, writing: WritingOptions) { (self.url, self.reading, self.writing) = (url, nil, writing) }

        var isWrite: Bool { writing != nil }
    }

    /// Items validated and presenters asked: ready to lock.
    struct Prepared {
        let items: [(FileCoordinator.Item, FileLock.Mode)]
        let reacquirers: [PresenterRequests.Reacquirer]
    }

    /// The synchronous forms: the whole coordination on the caller's thread.
    func run(_ accesses: [Access], _ outError: NSErrorPointer, _ accessor: ([URL]) -> Void) {
        let span = Tracing.begin(accesses.contains(where: \.isWrite) ? .coordinatedWrite : .coordinatedRead)
        defer { span?.end(accesses.first?.url.path ?? "", Self.traceArguments(accesses, outError)) }
        do {
            let prepared = try prepare(accesses)
            defer { PresenterRequests.reacquire(prepared.reacquirers) }
            let locks = try lock(prepared)
            defer { locks.release() }
            locks.hold {
                accessor(prepared.items.map(\.0.url))
                signal(prepared)
                removeLockFilesOfDeleted(accesses, prepared)
            }
        } catch {
            outError?.pointee = cocoaError(error, accesses).value
        }
    }

    /// What the trace says of a coordination: its items and its outcome.
    static func traceArguments(_ accesses: [Access], _ outError: NSErrorPointer) -> [(String, String)] {
        var args = [("by", "NSFileCoordinator")]
        for (index, access) in accesses.enumerated() {
            args.append(("item \(index + 1)", (access.isWrite ? "write " : "read ") + access.url.path))
        }
        if let error = outError?.pointee { args.append(("error", "\(error.domain) \(error.code)")) }
        return args
    }

    /// Validates every item, then asks their presenters (before any lock: see
    /// ``PresenterRequests``).
    func prepare(_ accesses: [Access]) throws -> Prepared {
        if isCancelled { throw CancellationError() }
        var items: [(FileCoordinator.Item, FileLock.Mode)] = []
        for access in accesses {
            do {
                let resolve = access.reading?.contains(.resolvesSymbolicLink) ?? false
                items.append((try FileCoordinator().item(access.url, resolvingLinks: resolve), access.isWrite ? .exclusive : .shared))
            } catch {
                throw Failure(error: CoordinationErrors.cocoa(error, url: access.url, writing: access.isWrite))
            }
        }
        let requests = PresenterRequests(excluded: filePresenter, isCancelled: { [cancelled] in cancelled.withLock { $0 } })
        var reacquirers: [PresenterRequests.Reacquirer] = []
        do {
            for (access, (item, _)) in zip(accesses, items) {
                if let options = access.writing {
                    try requests.beforeWriting(item.path, options: options, into: &reacquirers)
                } else {
                    try requests.beforeReading(item.path, options: access.reading ?? [], into: &reacquirers)
                }
            }
        } catch {
            PresenterRequests.reacquire(reacquirers)
            throw error
        }
        return Prepared(items: items, reacquirers: reacquirers)
    }

    func lock(_ prepared: Prepared) throws -> CancellableLocks {
        do {
            return try CancellableLocks(prepared.items, isCancelled: { [cancelled] in cancelled.withLock { $0 } })
        } catch let error as AppGroupError {
            // The item the error names (by its path, its lock file's or a directory above), else the first.
            let named: String?
            switch error {
            case let .systemCall(_, path, _), let .unsafePath(path, _), let .notARegularFile(path, _),
                 let .nestedCoordinationUpgrade(path), let .untrustedDirectory(path, _, _, _):
                named = path
            default:
                named = nil
            }
            let match = prepared.items.first { item, _ in
                guard let named else { return false }
                return item.path == named || item.lockPath == named || item.lockPath.hasPrefix(named + "/")
            } ?? prepared.items.first
            guard let (item, mode) = match else { throw error }
            throw Failure(error: CoordinationErrors.cocoa(error, url: item.url, writing: mode == .exclusive))
        }
    }

    /// Tells presenters everywhere of the writes just made (under their locks).
    func signal(_ prepared: Prepared) {
        let me = PresenterRegistry.identity(of: filePresenter)
        for (item, mode) in prepared.items where mode == .exclusive {
            ChangeSignal.post(.change, itemPath: item.path, excluding: me)
        }
    }

    /// The lock files of items written `.forDeleting` and gone now (the locks
    /// are still held): see ``FileCoordinator/removeLockFile(ofDeleted:)``.
    func removeLockFilesOfDeleted(_ accesses: [Access], _ prepared: Prepared) {
        for (access, (item, _)) in zip(accesses, prepared.items) where access.writing?.contains(.forDeleting) == true {
            FileCoordinator.removeLockFile(ofDeleted: item)
        }
    }

    /// An error already in Cocoa's terms.
    struct Failure: Error {
        let error: NSError
    }

    /// `error` as the NSError handed back: a cancellation as `NSUserCancelledError`,
    /// a presenter's error as it is.
    func cocoaError(_ error: Error, _ accesses: [Access]) -> Handoff<NSError> {
        switch error {
        case let failure as Failure: return Handoff(value: failure.error)
        case is CancellationError: return Handoff(value: CoordinationErrors.cancelled(accesses.first?.url))
        default: return Handoff(value: CoordinationErrors.presenter(error))
        }
    }
}
#endif
