/// A JSON number literal as an exact decimal: `±digits × 10^exponent`.
///
/// Bounds, `multipleOf`, `const`/`enum` exclusions and "is an integer" are decided on the literal
/// text itself, never through `Double`, so `0.1 + 0.2`-style rounding can never let an invalid
/// instance through or reject a valid one.
struct ExactDecimal: Sendable, Hashable, Comparable {
    /// True for values below zero (never set for zero).
    let negative: Bool
    /// Significant digits (0...9), no leading or trailing zeros; empty means zero.
    let digits: [UInt8]
    /// Power of ten applied to `digits`.
    let exponent: Int

    var isZero: Bool { digits.isEmpty }
    var isInteger: Bool { exponent >= 0 || isZero }

    init(negative: Bool, digits: [UInt8], exponent: Int) {
        var d = digits[...]
        while let f = d.first, f == 0 { d = d.dropFirst() }
        var e = exponent
        while let l = d.last, l == 0 { d = d.dropLast(); e += 1 }
        self.digits = Array(d)
        self.exponent = self.digits.isEmpty ? 0 : e
        self.negative = self.digits.isEmpty ? false : negative
    }

    /// Parses a JSON number literal (also accepts a leading `+` for schema values written oddly).
    init?(literal: some Sequence<UInt8>) {
        var neg = false, digits: [UInt8] = [], exp = 0, fracDigits = 0
        var phase = 0  // 0 int, 1 frac, 2 exp
        var expNeg = false, expVal = 0, sawDigit = false, sawExpDigit = false
        for b in literal {
            switch b {
            case UInt8(ascii: "-") where phase == 0 && !sawDigit && !neg: neg = true
            case UInt8(ascii: "-") where phase == 2 && !sawExpDigit: expNeg = true
            case UInt8(ascii: "+") where phase == 2 && !sawExpDigit: break
            case UInt8(ascii: "."): if phase != 0 { return nil }; phase = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"): if phase == 2 || !sawDigit { return nil }; phase = 2
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if phase == 2 {
                    sawExpDigit = true
                    expVal = min(expVal * 10 + Int(b - 48), 1_000_000_000)
                } else {
                    sawDigit = true
                    digits.append(b - 48)
                    if phase == 1 { fracDigits += 1 }
                }
            default: return nil
            }
        }
        if !sawDigit || (phase == 2 && !sawExpDigit) { return nil }
        exp = (expNeg ? -expVal : expVal) - fracDigits
        self.init(negative: neg, digits: digits, exponent: exp)
    }

    init?(_ s: String) { self.init(literal: Array(s.utf8)) }

    /// Position of the most significant digit (digits.count + exponent).
    private var magnitude: Int { digits.count + exponent }

    private static func compareMagnitude(_ a: ExactDecimal, _ b: ExactDecimal) -> Int {
        if a.isZero || b.isZero { return (a.isZero ? 0 : 1) - (b.isZero ? 0 : 1) }
        if a.magnitude != b.magnitude { return a.magnitude < b.magnitude ? -1 : 1 }
        let n = max(a.digits.count, b.digits.count)
        for k in 0..<n {
            let x = k < a.digits.count ? a.digits[k] : 0, y = k < b.digits.count ? b.digits[k] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }

    /// -1, 0 or 1.
    static func compare(_ a: ExactDecimal, _ b: ExactDecimal) -> Int {
        if a.negative != b.negative { return a.negative ? -1 : 1 }
        let m = compareMagnitude(a, b)
        return a.negative ? -m : m
    }

    static func < (a: ExactDecimal, b: ExactDecimal) -> Bool { compare(a, b) < 0 }

    /// Whether `self / m` is an integer; nil when the divisor has too many digits to decide exactly.
    func isMultiple(of m: ExactDecimal) -> Bool? {
        if isZero { return true }
        if m.isZero { return nil }
        let e = min(exponent, m.exponent)
        // Divisor M = m.digits followed by (m.exponent - e) zeros must fit comfortably in Int64.
        let mZeros = m.exponent - e
        guard m.digits.count + mZeros <= 17 else { return nil }
        var M: Int64 = 0
        for d in m.digits { M = M * 10 + Int64(d) }
        for _ in 0..<mZeros { M *= 10 }
        let zeros = exponent - e
        guard zeros <= 100_000 else { return nil }
        var r: Int64 = 0
        for d in digits { r = (r * 10 + Int64(d)) % M }
        for _ in 0..<zeros {
            r = (r * 10) % M
            if r == 0 { break }
        }
        return r == 0
    }
}
