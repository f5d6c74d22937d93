/// The XML format's dates, `YYYY-MM-DDTHH:MM:SSZ` in UTC, to and from seconds
/// since 2001-01-01T00:00:00Z. Pure arithmetic on the proleptic Gregorian
/// calendar (no Calendar or locale), valid for any year a Double date reaches.
enum PropertyListDate {
    /// Days from 1970-01-01 to 2001-01-01.
    private static let referenceDays: Int64 = 11_323

    /// The text for `seconds`, rounded down to a whole second (the XML format has
    /// none finer, as on Apple's platforms); nil when not finite or out of range.
    static func text(_ seconds: Double) -> String? {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        let whole = Int64(seconds.rounded(.down))
        let (dayOffset, secondOfDay) = floorDivide(whole, 86_400)
        let (y, m, d) = civil(fromDays: dayOffset + referenceDays)
        let hour = secondOfDay / 3600, minute = secondOfDay / 60 % 60, second = secondOfDay % 60
        let year = y < 0 ? "-" + pad(-y, 4) : pad(y, 4)
        return "\(year)-\(pad(m, 2))-\(pad(d, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
    }

    /// Seconds since 2001 for `text`, or nil when it is not such a date.
    static func seconds(_ text: String) -> Double? {
        var scalars = Substring(text)
        var negative = false
        if scalars.first == "-" || scalars.first == "+" { negative = scalars.first == "-"; scalars = scalars.dropFirst() }
        let parts = scalars.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasSuffix("Z") else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let time = parts[1].dropLast().split(separator: ":", omittingEmptySubsequences: false)
        guard date.count == 3, time.count == 3,
              date[0].count >= 4, date[0].count <= 12, date[1].count == 2, date[2].count == 2,
              time.allSatisfy({ $0.count == 2 }),
              let y = digits(date[0]), let m = digits(date[1]), let d = digits(date[2]),
              let hour = digits(time[0]), let minute = digits(time[1]), let second = digits(time[2]),
              (1...12).contains(m), (1...31).contains(d), hour < 24, minute < 60, second < 61 else { return nil }
        let days = days(fromCivil: negative ? -y : y, m, d) - referenceDays
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
    }

    private static func digits(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(s)
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    // Howard Hinnant's days_from_civil and civil_from_days.
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400).0
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097).0
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
