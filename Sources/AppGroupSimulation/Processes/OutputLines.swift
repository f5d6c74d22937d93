import Foundation

/// A child's output cut into lines by its bytes: a line ends at LF, and a CR just
/// before that LF belongs to the ending. Cutting a `String` on "\n" would not cut
/// at "\r\n", which Swift counts as one `Character` that is not "\n".
enum OutputLines {
    /// The lines of `bytes` that are complete (ended by LF); what follows the last
    /// LF is still being written and is left out.
    static func complete(_ bytes: Data) -> [String] {
        var parts = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        parts.removeLast() // the unfinished part after the last LF (empty when complete)
        return parts.map(line)
    }

    /// Every line of `text`, the unfinished last one too.
    static func all(_ text: String) -> [String] {
        Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).map(line)
    }

    private static func line<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> String {
        String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
