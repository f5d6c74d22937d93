import Foundation

/// Something the share extension received, waiting for the app or kept by it.
public struct SharedItem: Codable, Sendable, Hashable {
    /// Tells apart two shares of the same URL, and the same share seen twice
    /// (the app keeps each identifier once: see ``NotesLibrary/receiveShares()``).
    public var id: UUID
    /// What was shared.
    public var url: URL
    /// When the extension received it.
    public var sharedAt: Date

    /// A new share of `url` (a fresh identifier, now).
    public init(id: UUID = UUID(), url: URL, sharedAt: Date = Date()) {
        self.id = id
        self.url = url
        self.sharedAt = sharedAt
    }
}
