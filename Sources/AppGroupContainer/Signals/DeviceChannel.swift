import AppGroupSystem
import Foundation

/// A target's requests of its simulated device, over the channel the device made
/// for this process when it launched it (the lifecycle channel, descriptor 3).
///
/// The device knows who asks from the channel itself, so a request says only
/// what is asked; the device's records (the widgets it installed, its clock, its
/// budget) stay where no target may write. A process the device did not launch as
/// a target (the test process, a program launched without a target, a child a
/// target started) has no channel: ``ask(_:_:timeout:)`` answers
/// ``Answer/noChannel`` and the caller uses its path for unsandboxed processes.
package enum DeviceChannel {
    /// What the device answered.
    package enum Answer: Sendable, Equatable {
        /// The device did what was asked; its answer (may be empty).
        case accepted(String)
        /// The device refused; why, in its words.
        case refused(String)
        /// Sent from a lifecycle handler, which cannot wait: the device handles it
        /// before it goes on with the lifecycle, but its answer is not read.
        case sent
        /// This process has no channel.
        case noChannel
        /// Not sent, or not answered in time; why.
        case unanswered(String)
    }

    /// The longest answer the device sends (a target's listener buffers one line).
    package static let answerLimit = ProcessSystemCalls.lifecycleLineLimit - 64

    /// True when this process was launched by a device with a channel.
    package static var isConnected: Bool { LifecycleListener.isListening }

    /// Asks the device for `subject` (one word, such as `widget.reload`) with
    /// `payload` (one line, JSON by convention), waiting at most `timeout` seconds.
    package static func ask(_ subject: String, _ payload: String, timeout: TimeInterval = 60) -> Answer {
        switch LifecycleListener.ask(subject, payload, timeout: timeout) {
        case .accepted(let text): .accepted(text)
        case .refused(let text): .refused(text)
        case .sent: .sent
        case .noChannel: .noChannel
        case .unanswered(let why): .unanswered(why)
        }
    }
}
