// When a rate-limited client may retry. `Retry-After` (RFC 9110 §10.2.3) is delta-seconds or
// an HTTP-date; OpenAI also sends `retry-after-ms` and `x-ratelimit-reset-*` durations like
// `6m0s` or `20ms`.
import Foundation

/// Parses retry hints from response headers.
public enum RetryAfter {
    /// The earliest retry time the headers (lower-cased names) announce, or nil if none parse.
    /// Precedence: `retry-after-ms`, `retry-after`, then the later of the
    /// `x-ratelimit-reset-requests`/`-tokens` durations.
    public static func resetDate(headers: [String: String], now: Date = Date()) -> Date? {
        if let ms = headers["retry-after-ms"].flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), ms.isFinite, ms >= 0 {
            return now.addingTimeInterval(ms / 1000)
        }
        if let value = headers["retry-after"], let date = parse(value, now: now) { return date }
        let resets = ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"].compactMap { headers[$0].flatMap(duration) }
        return resets.max().map { now.addingTimeInterval($0) }
    }

    /// A `Retry-After` value: delta-seconds or an HTTP-date (IMF-fixdate, RFC 850, asctime).
    public static func parse(_ value: String, now: Date = Date()) -> Date? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if !v.isEmpty, v.allSatisfy(\.isASCIIDigit) {
            return Double(v).map { now.addingTimeInterval($0) }
        }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "GMT")
            f.dateFormat = format
            if let d = f.date(from: v.replacingOccurrences(of: "  ", with: " ")) { return d }
        }
        return nil
    }

    /// A Go-style duration such as `1s`, `6m0s`, `1h2m3.5s`, `250ms`, in seconds.
    public static func duration(_ text: String) -> TimeInterval? {
        var s = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !s.isEmpty else { return nil }
        var total = 0.0
        while !s.isEmpty {
            let number = s.prefix { $0.isASCIIDigit || $0 == "." }
            guard !number.isEmpty, let n = Double(number) else { return nil }
            s = s.dropFirst(number.count)
            let unit = s.prefix { $0.isLetter }
            s = s.dropFirst(unit.count)
            switch unit {
            case "h": total += n * 3600
            case "m": total += n * 60
            case "s": total += n
            case "ms": total += n / 1000
            case "us", "µs": total += n / 1_000_000
            case "ns": total += n / 1_000_000_000
            default: return nil
            }
        }
        return total
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
