import Foundation

/// The inbox's directory as a standardized path, its `Sequence` file's and its
/// `Journal/` directory's URLs, made once per instance: every enqueue opens the
/// first and coordinates on the second, every journal delivery names the third,
/// and making them again (standardizing a URL, appending a component) cost more
/// than the enqueue's or the delivery's own work.
struct InboxPaths: Sendable {
    /// The inbox's directory, standardized (``ShareInbox/directory``'s path).
    let directory: String
    /// `<inbox>/Sequence`.
    let sequenceFile: URL
    /// `<inbox>/Journal/`.
    let journalDirectory: URL

    init(directory url: URL) {
        directory = url.path
        sequenceFile = url.appendingPathComponent("Sequence", isDirectory: false)
        journalDirectory = url.appendingPathComponent("Journal", isDirectory: true)
    }
}
