/// Names the package derives from other names (lock files, temporaries, suite
/// files), kept within the 255-byte limit of a file name (NAME_MAX).
///
/// A valid group identifier may be 255 bytes, so `<group>.plist`, its lock file
/// `.<group>.plist.lock` and its temporaries would not fit. Such a name is
/// shortened by one fixed rule, so that every process, in any language, derives
/// the same name (<doc:LockingProtocol>, section 1):
///
/// a derived name N (UTF-8) longer than the limit becomes
/// `P + "~" + H + S`, where S is N's fixed suffix (`.lock`, `.plist`, `.tmp-`),
/// H the first 32 lowercase hexadecimal digits of SHA-256(N) (all of N, suffix
/// included) and P the longest prefix of N without S that keeps the whole within
/// the limit and does not split a UTF-8 sequence.
package enum FileNames {
    /// The longest file name the file systems in use accept, in bytes.
    package static let maximumLength = 255

    /// Bytes a temporary name adds after its prefix: `<pid>-<random>`, both
    /// 32-bit decimal numbers (at most 10 digits each) and a dash.
    static let temporarySuffixLength = 21

    /// `name` unchanged when it fits in `limit` bytes, else shortened by the rule
    /// above, keeping `suffix` (which `name` must end with; ignored otherwise).
    package static func fitted(_ name: String, keepingSuffix suffix: String = "", limit: Int = maximumLength) -> String {
        let bytes = Array(name.utf8)
        if bytes.count <= limit { return name }
        let tail = name.hasSuffix(suffix) ? Array(suffix.utf8) : []
        let hash = String(SHA256.hex(bytes).prefix(32))
        let budget = max(limit - tail.count - 1 - hash.utf8.count, 0)
        var cut = min(budget, bytes.count - tail.count)
        // Back off to the start of a UTF-8 sequence: continuation bytes are 10xxxxxx.
        while cut > 0 && cut < bytes.count && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        return String(decoding: bytes[0..<cut], as: UTF8.self) + "~" + hash + String(decoding: tail, as: UTF8.self)
    }

    /// The lock file's name for an item named `name`: `.<name>.lock`, fitted.
    package static func lockName(for name: String) -> String {
        fitted("." + name + ".lock", keepingSuffix: ".lock")
    }

    /// The prefix of the temporaries made for `name`: `.<name>.tmp-`, fitted so
    /// that the whole temporary name (`<prefix><pid>-<random>`) stays within the limit.
    package static func temporaryPrefix(for name: String) -> String {
        fitted("." + name + ".tmp-", keepingSuffix: ".tmp-", limit: maximumLength - temporarySuffixLength)
    }
}
