import AppGroupContainer
import AppGroupSystem
import Foundation

/// Who asked the device something, as the device knows it: the target it launched
/// on this channel, and that process. Never what the ask says about itself.
struct DeviceAsker: Sendable, CustomStringConvertible {
    let target: SimulatedTarget
    let processIdentifier: Int32
    var description: String { "\(target.name) (\(target.bundleIdentifier)) [\(processIdentifier)]" }
}

/// The device's answer to an ask.
enum DeviceAnswer: Sendable, Equatable {
    case ok(String)
    case refused(String)
}

// A target's requests of its device come on the channel the device made for it
// (`ask <id> <subject> <payload>`, AppGroupSystem's LifecycleAsk.swift), so the
// device knows who asks from the channel alone. Each is answered on the reader
// thread before the next line is read: a line the target sends after an ask (the
// acknowledgement of a lifecycle notice) is read only once the ask is handled.
extension LifecycleConnection {
    /// Answers one `ask` line: `0 reply <id> ok|refused <text>` (sequence 0: the
    /// device waits for no acknowledgement of it).
    func answer(_ line: String) {
        let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        let asker = DeviceAsker(target: target, processIdentifier: condition.withLock { pid })
        let subject = words.count > 2 ? String(words[2]) : ""
        // An id is what the target's listener reads back: digits only, short.
        guard words.count > 2, let id = words.dropFirst().first, !id.isEmpty, id.count <= 18,
              id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            device?.refuseAsk(subject, from: asker, problem: "the line is not `ask <id> <subject> <payload>` with a numeric id")
            return
        }
        let payload = words.count > 3 ? String(words[3]) : ""
        let answer = device?.answerAsk(subject, payload, from: asker) ?? .refused("the device was removed")
        let (word, text) = switch answer {
        case .ok(let text): ("ok", text)
        case .refused(let text): ("refused", text)
        }
        let oneLine = text.replacingOccurrences(of: "\n", with: " ")
        guard oneLine.utf8.count <= DeviceChannel.answerLimit else {
            return send(reply: "0 reply \(id) refused the answer is longer than a target's channel takes (\(DeviceChannel.answerLimit) bytes)")
        }
        send(reply: "0 reply \(id) \(word) \(oneLine)")
    }

    /// Sends a reply line; a target that ended takes nothing more.
    private func send(reply: String) {
        try? ProcessSystemCalls.sendAll(Data((reply + "\n").utf8), to: fd)
    }
}

extension SimulatedDevice {
    /// The device's answer to `subject` asked by `asker`, by the subject's area.
    func answerAsk(_ subject: String, _ payload: String, from asker: DeviceAsker) -> DeviceAnswer {
        if subject.hasPrefix("widget.") { return answerWidgetAsk(subject, payload, from: asker) }
        if subject.hasPrefix("notifications.") { return answerNotificationAsk(subject, payload, from: asker) }
        return .refused("the device takes no \(AppGroupError.quote(subject)) from a target")
    }

    /// Records an ask the device could not read, in the area its subject names.
    func refuseAsk(_ subject: String, from asker: DeviceAsker, problem: String) {
        if subject.hasPrefix("widget.") {
            life.widgets.refuse(.requestRefused(request: subject, from: "\(asker)", problem: problem))
        }
    }
}
