import Foundation

/// A caller's timeout made one every clock accepts: NaN and negative values wait
/// not at all, and anything over a year (infinity included) waits a year, which
/// is forever for a test. Unclamped, a huge value overflowed the conversion to the
/// kernel's time and trapped.
enum WaitTimeout {
    static let longest: TimeInterval = 365 * 24 * 3600

    static func clamped(_ timeout: TimeInterval) -> TimeInterval {
        timeout.isNaN ? 0 : min(max(timeout, 0), longest)
    }

    /// When a wait of `timeout` seconds starting now ends.
    static func deadline(_ timeout: TimeInterval) -> Date { Date().addingTimeInterval(clamped(timeout)) }
}
