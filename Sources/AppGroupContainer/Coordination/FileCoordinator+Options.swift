import Foundation

// The coordinator's options carry the members and raw values of Apple's
// `NSFileCoordinator.ReadingOptions` and `WritingOptions`, so that the stores'
// calls read as Apple's do (`options: .forMerging`) and AppGroupFoundation's
// NSFileCoordinator hands its options down by raw value. They are the package's
// own, not Apple's: Apple's public types live in AppGroupFoundation, above.
extension FileCoordinator {
    /// The options of a coordinated read. This coordinator asks no presenters, so
    /// only `.resolvesSymbolicLink` changes what it does.
    package struct ReadingOptions: OptionSet, Sendable {
        package let rawValue: UInt
        package init(rawValue: UInt) { self.rawValue = rawValue }
        package static let withoutChanges = Self(rawValue: 1 << 0)
        package static let resolvesSymbolicLink = Self(rawValue: 1 << 1)
        package static let immediatelyAvailableMetadataOnly = Self(rawValue: 1 << 2)
        package static let forUploading = Self(rawValue: 1 << 3)
    }

    /// The options of a coordinated write. Every writing option takes the same
    /// exclusive lock; they record intent (`.forDeleting` also removes the deleted
    /// item's lock file).
    package struct WritingOptions: OptionSet, Sendable {
        package let rawValue: UInt
        package init(rawValue: UInt) { self.rawValue = rawValue }
        package static let forDeleting = Self(rawValue: 1 << 0)
        package static let forMoving = Self(rawValue: 1 << 1)
        package static let forMerging = Self(rawValue: 1 << 2)
        package static let forReplacing = Self(rawValue: 1 << 3)
        package static let contentIndependentMetadataOnly = Self(rawValue: 1 << 4)
    }
}
