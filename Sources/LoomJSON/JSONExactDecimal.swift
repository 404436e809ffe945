// The exact value of a JSON number literal, for comparing numbers without `Double`, which rounds
// (`0.1` and `0.10000000000000001` are one Double), saturates (`1e400` is infinity) and
// underflows (`1e-400` is 0). RFC 8259 §6 leaves precision to implementations; a lossless layer
// that keeps literals as written should not let two different written values compare equal.

/// A number literal's value as `sign × digits × 10^exponent` with no leading or trailing zero in
/// `digits`; zero is one value whatever its sign or spelling.
struct JSONExactDecimal: Hashable, Sendable {
    private enum Form: Hashable, Sendable {
        case zero
        case finite(negative: Bool, digits: String, exponent: Int)
        /// Text that is not number syntax (`JSONNumber(literal:)` does not check), or an exponent
        /// beyond `Int`: compared as written.
        case unparsed(String)
    }

    private let form: Form

    init(literal: String) {
        form = Self.parse(literal) ?? .unparsed(literal)
    }

    private static func parse(_ literal: String) -> Form? {
        var bytes = Substring(literal).utf8[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        let integer = bytes.prefix(while: isDigit)
        guard !integer.isEmpty else { return nil }
        bytes = bytes.dropFirst(integer.count)
        var fraction = bytes.prefix(0)
        if bytes.first == UInt8(ascii: ".") {
            fraction = bytes.dropFirst().prefix(while: isDigit)
            guard !fraction.isEmpty else { return nil }
            bytes = bytes.dropFirst(1 + fraction.count)
        }
        var exponent = 0
        if let mark = bytes.first, mark == UInt8(ascii: "e") || mark == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            let digits = bytes.prefix(while: isDigit)
            guard !digits.isEmpty, digits.count == bytes.count,
                  let magnitude = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
            exponent = exponentNegative ? -magnitude : magnitude
            bytes = bytes.dropFirst(digits.count)
        }
        guard bytes.isEmpty else { return nil }
        let all = Array(integer) + Array(fraction)
        guard let first = all.firstIndex(where: { $0 != 0x30 }) else { return .zero }
        let last = all.lastIndex(where: { $0 != 0x30 })!
        // The value is all × 10^(exponent − fraction.count); dropping trailing zeros raises the power.
        let (shifted, overflow) = exponent.subtractingReportingOverflow(fraction.count - (all.count - 1 - last))
        guard !overflow else { return nil }
        return .finite(negative: negative, digits: String(decoding: all[first...last], as: UTF8.self), exponent: shifted)
    }
}
