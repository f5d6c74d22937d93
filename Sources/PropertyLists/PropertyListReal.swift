/// A real number's text (an XML `<real>`, `appgroup defaults write -float`) read as
/// the 64-bit real nearest it, or refused when no real is near it: a finite number
/// too large (it would read as an infinity) or non-zero and too small (it would read
/// as zero). Either would be stored as something the text does not say.
package enum PropertyListReal {
    /// Why a text is not read.
    package enum Problem: Error, Sendable, Equatable {
        /// Not a number at all.
        case notANumber
        /// Finite but beyond ±1.7976931348623157e308.
        case tooLarge
        /// Not zero, but nearer zero than 4.9406564584124654e-324.
        case tooSmall

        /// The problem in words, for messages.
        package var explanation: String {
            switch self {
            case .notANumber: return "is not a number"
            case .tooLarge: return "is beyond a 64-bit real's range (about ±1.8e308) and would be read as an infinity"
            case .tooSmall: return "is nearer zero than a 64-bit real can be (about 4.9e-324) and would be read as 0"
            }
        }
    }

    /// The real `text` holds (spaces around it ignored): digits in decimal or hex
    /// (`0x1.8p1`), or `inf`, `infinity` and `nan`, with or without a sign.
    package static func parse(_ text: String) -> Result<Double, Problem> {
        let trimmed = text.trimmingWhitespace()
        let lower = trimmed.lowercased()
        switch lower {
        case "inf", "+inf", "infinity", "+infinity": return .success(.infinity)
        case "-inf", "-infinity": return .success(-.infinity)
        case "nan", "+nan", "-nan": return .success(.nan)
        default: break
        }
        guard let value = Double(trimmed) else { return .failure(.notANumber) }
        if value.isInfinite { return .failure(.tooLarge) }
        if value == 0, hasNonZeroMantissa(lower) { return .failure(.tooSmall) }
        return .success(value)
    }

    /// True when a digit before the exponent is not 0 (the number is not zero).
    private static func hasNonZeroMantissa(_ lower: String) -> Bool {
        var text = Substring(lower)
        if text.hasPrefix("-") || text.hasPrefix("+") { text = text.dropFirst() }
        let hex = text.hasPrefix("0x")
        if hex { text = text.dropFirst(2) }
        let mantissa = text.prefix { $0 != (hex ? "p" : "e") }
        return mantissa.contains { $0 != "0" && $0 != "." && (hex ? $0.isHexDigit : $0.isNumber) }
    }
}

private extension String {
    /// Without leading and trailing white space.
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
