#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// A request to a presenter in another process: one line on a connection to that
/// process's socket (``RemotePresenters``): `<kind> <presenter id> <sequence>
/// <reference> <percent-encoded path>`. The sequence is the asker's own number
/// for the request; the presenting process knows the asker from the kernel, never
/// from the line.
struct RemotePresenterMessage: Sendable {
    enum Kind: String, Sendable {
        case save
        case relinquishToWriter = "writer"
        case relinquishToReader = "reader"
        case deletion = "delete"
        case subitemDeletion = "subitem-delete"
        /// The access is over: run the reacquirer given for request `reference`.
        case reacquire

        /// The NSFilePresenter member the request calls, as errors name it.
        var member: String {
            switch self {
            case .save: return "savePresentedItemChanges(completionHandler:)"
            case .relinquishToWriter: return "relinquishPresentedItem(toWriter:)"
            case .relinquishToReader: return "relinquishPresentedItem(toReader:)"
            case .deletion: return "accommodatePresentedItemDeletion(completionHandler:)"
            case .subitemDeletion: return "accommodatePresentedSubitemDeletion(at:completionHandler:)"
            case .reacquire: return "the reacquirer"
            }
        }
    }

    let kind: Kind
    let presenter: UInt
    /// The asker's number for this request (a relinquish's reacquirer is named by it).
    let sequence: UInt64
    let reference: UInt64
    /// The item accessed (for a directory's presenter, the item below it).
    let itemPath: String

    init(_ kind: Kind, presenter: UInt, sequence: UInt64, reference: UInt64 = 0, itemPath: String) {
        (self.kind, self.presenter, self.sequence, self.reference, self.itemPath) = (kind, presenter, sequence, reference, itemPath)
    }

    var line: [UInt8] { Array("\(kind.rawValue) \(presenter) \(sequence) \(reference) \(ChangeSignal.encode(itemPath))\n".utf8) }

    /// Nil for anything this code did not write (`line` without its newline).
    init?(line: String) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 5, let kind = Kind(rawValue: String(fields[0])), let presenter = UInt(fields[1]),
              let sequence = UInt64(fields[2]), let reference = UInt64(fields[3]), let path = ChangeSignal.decode(fields[4]) else { return nil }
        self.init(kind, presenter: presenter, sequence: sequence, reference: reference, itemPath: path)
    }
}

/// A presenter's answer, one line on the connection its request came on: `ok`,
/// `ok reacquire` (it passed a block to run after the access), or `error <domain>
/// <code> <description>` (its completion handler's error, which stops the access).
enum RemotePresenterAnswer: Sendable {
    case done(reacquire: Bool)
    case failed(domain: String, code: Int, description: String)

    var line: [UInt8] {
        switch self {
        case .done(let reacquire): return Array((reacquire ? "ok reacquire\n" : "ok\n").utf8)
        case let .failed(domain, code, description):
            let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "?" }
            return Array("error \(encode(domain)) \(code) \(encode(description))\n".utf8)
        }
    }

    init(_ error: (any Error)?, reacquire: Bool = false) {
        guard let error else { self = .done(reacquire: reacquire); return }
        let bridged = error as NSError
        self = .failed(domain: bridged.domain, code: bridged.code, description: bridged.localizedDescription)
    }

    /// Nil for anything this code did not write (`line` without its newline).
    init?(line: String) {
        let fields = line.split(separator: " ")
        switch fields.first {
        case "ok": self = .done(reacquire: fields.count > 1 && fields[1] == "reacquire")
        case "error":
            guard fields.count == 4, let domain = String(fields[1]).removingPercentEncoding, let code = Int(fields[2]),
                  let description = String(fields[3]).removingPercentEncoding else { return nil }
            self = .failed(domain: domain, code: code, description: description)
        default: return nil
        }
    }

    /// The presenter's error as the asker hands it back (Apple passes it as it is).
    var error: NSError? {
        guard case let .failed(domain, code, description) = self else { return nil }
        return NSError(domain: domain, code: code, userInfo: [NSLocalizedDescriptionKey: description])
    }
}
#endif
