import Foundation

/// The locking protocol's article, as the package ships it: its Python is what
/// the peer tests run, so the specification and the tests cannot drift apart.
package enum LockingProtocolArticle {
    package static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() // Tests/TestSupport/<file>
        .appendingPathComponent("Sources/AppGroupContainer/AppGroupContainer.docc/LockingProtocol.md")

    /// Every ```python block of the article, in order, joined.
    package static func python() throws -> String {
        let text = try String(contentsOf: url, encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```python") {
                current = []
            } else if let block = current, line.hasPrefix("```") {
                blocks.append(block.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks.joined(separator: "\n\n") + "\n"
    }
}
