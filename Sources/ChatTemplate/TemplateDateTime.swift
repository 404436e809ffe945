#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall-clock time `strftime_now` formats: injectable so renders are reproducible.
///
/// Hugging Face calls `datetime.now().strftime(fmt)`, i.e. local time; `current()` does the same.
public struct TemplateDateTime: Sendable, Equatable {
    /// The year, e.g. 2026.
    public var year: Int
    /// The month, 1–12.
    public var month: Int
    /// The day of the month, 1–31.
    public var day: Int
    /// The hour, 0–23.
    public var hour: Int
    /// The minute, 0–59.
    public var minute: Int
    /// The second, 0–60.
    public var second: Int

    /// A fixed date and time (month and day 1-based).
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The current local time.
    public static func current() -> TemplateDateTime {
        var t = time(nil)
        var parts = tm()
        localtime_r(&t, &parts)
        return TemplateDateTime(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                                hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }

    /// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS]` (a zone suffix is ignored:
    /// the time is taken as local wall-clock time).
    public init?(iso8601 text: String) {
        let digits = text.unicodeScalars.map { $0 }
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= digits.count else { return nil }
            var v = 0
            for i in from..<(from + count) {
                guard let d = Int(String(digits[i])) else { return nil }
                v = v * 10 + d
            }
            return v
        }
        guard let y = number(0, 4), digits.count >= 10, digits[4] == "-", digits[7] == "-",
              let m = number(5, 2), let d = number(8, 2), (1...12).contains(m), (1...31).contains(d) else { return nil }
        self.init(year: y, month: m, day: d)
        if digits.count > 10 {
            guard digits[10] == "T" || digits[10] == " ", let h = number(11, 2), digits.count >= 16, digits[13] == ":",
                  let mi = number(14, 2), h < 24, mi < 60 else { return nil }
            hour = h
            minute = mi
            if digits.count >= 19, digits[16] == ":", let s = number(17, 2), s < 61 { second = s }
        }
    }

    /// C/Python `strftime` in the C locale (English month and day names).
    public func format(_ pattern: String) -> String {
        var parts = tm()
        parts.tm_year = Int32(clamping: year - 1900)
        parts.tm_mon = Int32(clamping: month - 1)
        parts.tm_mday = Int32(clamping: day)
        parts.tm_hour = Int32(clamping: hour)
        parts.tm_min = Int32(clamping: minute)
        parts.tm_sec = Int32(clamping: second)
        // timegm fills in the weekday and day of the year.
        _ = timegm(&parts)
        var size = 256
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            let n = strftime(&buffer, size, pattern, &parts)
            if n > 0 || pattern.isEmpty { return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
            size *= 4
        }
        return ""
    }
}
