/// What one pass over a path's bytes tells: this runs on every coordination.
package struct PathScan {
    package var hasPercent = false
    package var hasNUL = false
    /// Absolute, with no empty, "." or ".." component and no trailing slash.
    package var isStandardAbsolute = true

    package init(_ path: String) {
        var copy = path
        copy.withUTF8 { bytes in
            guard bytes.first == UInt8(ascii: "/") else { isStandardAbsolute = false; return }
            var componentStart = 1
            func checkComponent(_ end: Int) {
                let length = end - componentStart
                let dot = UInt8(ascii: ".")
                if length == 0 && end > 1 { isStandardAbsolute = false }
                if length == 1 && bytes[componentStart] == dot { isStandardAbsolute = false }
                if length == 2 && bytes[componentStart] == dot && bytes[componentStart + 1] == dot { isStandardAbsolute = false }
            }
            for i in 0..<bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "/"):
                    if i > 0 { checkComponent(i) }
                    componentStart = i + 1
                case UInt8(ascii: "%"): hasPercent = true
                case 0: hasNUL = true
                default: break
                }
            }
            if bytes.count > 1 { checkComponent(bytes.count) }
        }
    }
}
