/// A set of Unicode scalar values as sorted, disjoint, non-adjacent closed ranges.
///
/// Regexes and GBNF classes are written over characters, but the matcher works on UTF-8 bytes;
/// `utf8Sequences` turns a class into byte-range sequences so that tokens splitting a multi-byte
/// character are handled exactly.
struct CharClass: Hashable, Sendable {
    private(set) var ranges: [ClosedRange<UInt32>] = []

    static let maxScalar: UInt32 = 0x10FFFF

    init() {}
    init(_ r: ClosedRange<UInt32>) { add(r) }
    init(_ rs: [ClosedRange<UInt32>]) { for r in rs { add(r) } }
    init(scalar c: UInt32) { add(c...c) }

    static let any = CharClass(0...maxScalar)
    static let digit = CharClass(0x30...0x39)
    static let word = CharClass([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// ECMAScript `\s`: WhiteSpace and LineTerminator code points.
    static let space = CharClass([0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                  0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000,
                                  0xFEFF...0xFEFF])
    /// ECMAScript `.`: everything but line terminators.
    static let dot = CharClass([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]).inverted

    var isEmpty: Bool { ranges.isEmpty }

    mutating func add(_ r: ClosedRange<UInt32>) {
        var lo = r.lowerBound, hi = min(r.upperBound, CharClass.maxScalar)
        guard lo <= hi else { return }
        var out: [ClosedRange<UInt32>] = []
        var placed = false
        for x in ranges {
            if x.upperBound &+ 1 < lo {
                out.append(x)
            } else if hi &+ 1 < x.lowerBound {
                if !placed { out.append(lo...hi); placed = true }
                out.append(x)
            } else {
                lo = min(lo, x.lowerBound)
                hi = max(hi, x.upperBound)
            }
        }
        if !placed { out.append(lo...hi) }
        ranges = out
    }

    mutating func add(_ other: CharClass) { for r in other.ranges { add(r) } }

    var inverted: CharClass {
        var out = CharClass()
        var next: UInt32 = 0
        for r in ranges {
            if r.lowerBound > next { out.ranges.append(next...(r.lowerBound - 1)) }
            next = r.upperBound + 1
        }
        if next <= CharClass.maxScalar { out.ranges.append(next...CharClass.maxScalar) }
        return out
    }

    func contains(_ c: UInt32) -> Bool { ranges.contains { $0.contains(c) } }

    /// The class as sequences of byte ranges, one per UTF-8 length/prefix block; surrogates excluded.
    var utf8Sequences: [[ClosedRange<UInt8>]] {
        var out: [[ClosedRange<UInt8>]] = []
        for r in ranges {
            // Split at the encoded-length boundaries and around the surrogate block.
            let cuts: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
            for c in cuts {
                let lo = max(r.lowerBound, c.lowerBound), hi = min(r.upperBound, c.upperBound)
                if lo <= hi { CharClass.split(lo, hi, into: &out) }
            }
        }
        return out
    }

    private static func encodedLength(_ c: UInt32) -> Int { c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4 }

    /// Splits [lo, hi] (same encoded length) until every byte position varies over a full range,
    /// so the set is exactly the product of per-position byte ranges.
    private static func split(_ lo: UInt32, _ hi: UInt32, into out: inout [[ClosedRange<UInt8>]]) {
        let n = encodedLength(lo)
        if n > 1 {
            for i in 1..<n {
                let m: UInt32 = (1 << (6 * UInt32(i))) - 1
                if lo & ~m != hi & ~m {
                    if lo & m != 0 {
                        split(lo, lo | m, into: &out)
                        split((lo | m) + 1, hi, into: &out)
                        return
                    }
                    if hi & m != m {
                        split(lo, (hi & ~m) - 1, into: &out)
                        split(hi & ~m, hi, into: &out)
                        return
                    }
                }
            }
        }
        let a = utf8(lo), b = utf8(hi)
        var seq: [ClosedRange<UInt8>] = []
        for k in 0..<a.count { seq.append(a[k]...b[k]) }
        out.append(seq)
    }

    static func utf8(_ c: UInt32) -> [UInt8] {
        switch c {
        case 0..<0x80: return [UInt8(c)]
        case 0x80..<0x800: return [UInt8(0xC0 | (c >> 6)), UInt8(0x80 | (c & 0x3F))]
        case 0x800..<0x10000:
            return [UInt8(0xE0 | (c >> 12)), UInt8(0x80 | ((c >> 6) & 0x3F)), UInt8(0x80 | (c & 0x3F))]
        default:
            return [UInt8(0xF0 | (c >> 18)), UInt8(0x80 | ((c >> 12) & 0x3F)),
                    UInt8(0x80 | ((c >> 6) & 0x3F)), UInt8(0x80 | (c & 0x3F))]
        }
    }
}
