import PropertyLists

/// Finding keys that are equal as Swift strings but spelled differently
/// ("caf\u{E9}" and "cafe\u{301}"): Apple's platforms keep both, but anything that
/// puts them in a Swift dictionary (Codable decoding, `[String: Any]`) cannot.
enum TwinKeys {
    /// The first such key anywhere in `tree`, or nil. Walks with its own stack.
    static func first(in tree: PropertyListTree) -> String? {
        var pending = [tree]
        while let node = pending.popLast() {
            switch node {
            case .array(let items): pending += items
            case .dictionary(let d):
                var seen = Set<String>()
                for (key, value) in d {
                    if !seen.insert(key).inserted { return key }
                    pending.append(value)
                }
            default: continue
            }
        }
        return nil
    }
}
