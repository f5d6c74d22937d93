import Foundation

// The coordinator's options are the package's own, not Apple's (Apple's public
// `NSFileCoordinator.ReadingOptions` and `WritingOptions` live in AppGroupFoundation,
// above this module). They name only what the package's callers pass, with Apple's
// member names and raw values, so that a call reads as Apple's does
// (`options: .forMerging`) and a raw value means the same in both.
extension FileCoordinator {
    /// The options of a coordinated read. This coordinator asks no presenters, so
    /// following a link is the one option that changes what it does.
    package struct ReadingOptions: OptionSet, Sendable {
        package let rawValue: UInt
        package init(rawValue: UInt) { self.rawValue = rawValue }
        /// Coordinate the target of a symbolic link rather than the link itself.
        package static let resolvesSymbolicLink = Self(rawValue: 1 << 1)
    }

    /// The options of a coordinated write. Every write takes the same exclusive
    /// lock; the options record intent, and `.forDeleting` also removes the deleted
    /// item's lock file.
    package struct WritingOptions: OptionSet, Sendable {
        package let rawValue: UInt
        package init(rawValue: UInt) { self.rawValue = rawValue }
        package static let forDeleting = Self(rawValue: 1 << 0)
        package static let forMerging = Self(rawValue: 1 << 2)
        package static let forReplacing = Self(rawValue: 1 << 3)
    }
}
