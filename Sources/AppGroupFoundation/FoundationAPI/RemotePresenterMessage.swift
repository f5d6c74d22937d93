#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// A request to a presenter in another process: one file in that process's inbox
/// (``RemotePresenters``), one line: `<kind> <presenter id> <reference> <path>`.
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
    let reference: UInt64
    /// The item accessed (for a directory's presenter, the item below it).
    let itemPath: String

    init(_ kind: Kind, presenter: UInt, reference: UInt64 = 0, itemPath: String) {
        (self.kind, self.presenter, self.reference, self.itemPath) = (kind, presenter, reference, itemPath)
    }

    var data: Data { Data("\(kind.rawValue) \(presenter) \(reference) \(ChangeSignal.encode(itemPath))\n".utf8) }

    /// Nil for anything this code did not write.
    init?(_ data: Data) {
        let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 4, let kind = Kind(rawValue: String(fields[0])), let presenter = UInt(fields[1]),
              let reference = UInt64(fields[2]), let path = ChangeSignal.decode(fields[3]) else { return nil }
        self.init(kind, presenter: presenter, reference: reference, itemPath: path)
    }

    /// The inbox file name of request `sequence` of process `sender`.
    static func fileName(from sender: ProcessKey, sequence: UInt64) -> String {
        sender.name + "_" + String(sequence, radix: 16).leftPadded(to: 16)
    }

    /// The sender and sequence a request's file name holds.
    static func parse(fileName: String) -> (ProcessKey, UInt64)? {
        guard let underscore = fileName.firstIndex(of: "_"), let sender = ProcessKey(prefixOf: Substring(fileName)),
              let sequence = UInt64(fileName[fileName.index(after: underscore)...], radix: 16) else { return nil }
        return (sender, sequence)
    }
}

/// A presenter's answer, one file in the asker's answers directory: `ok`, `ok
/// reacquire` (it passed a block to run after the access), or `error <domain>
/// <code> <description>` (its completion handler's error, which stops the access).
enum RemotePresenterAnswer: Sendable {
    case done(reacquire: Bool)
    case failed(domain: String, code: Int, description: String)

    var data: Data {
        switch self {
        case .done(let reacquire): return Data((reacquire ? "ok reacquire\n" : "ok\n").utf8)
        case let .failed(domain, code, description):
            let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "?" }
            return Data("error \(encode(domain)) \(code) \(encode(description))\n".utf8)
        }
    }

    init(_ error: (any Error)?, reacquire: Bool = false) {
        guard let error else { self = .done(reacquire: reacquire); return }
        let bridged = error as NSError
        self = .failed(domain: bridged.domain, code: bridged.code, description: bridged.localizedDescription)
    }

    /// Nil for anything this code did not write.
    init?(_ data: Data) {
        let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
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

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
#endif
