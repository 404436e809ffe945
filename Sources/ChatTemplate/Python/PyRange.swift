/// Python's `range(start, stop, step)`.
struct PyRange {
    let start: Int
    let stop: Int
    let step: Int

    var count: Int {
        // 128-bit arithmetic: slicing can produce bounds whose difference overflows 64 bits.
        let a = Int128(start), b = Int128(stop), s = Int128(step)
        let n: Int128
        if s > 0 { n = a < b ? (b - a - 1) / s + 1 : 0 } else { n = a > b ? (a - b - 1) / (-s) + 1 : 0 }
        return Int(clamping: n)
    }

    func element(_ i: Int) -> Int { start + i * step }

    var elements: [Value] { (0..<count).map { .int(element($0)) } }

    func contains(_ x: Int) -> Bool {
        if step > 0 ? !(x >= start && x < stop) : !(x <= start && x > stop) { return false }
        return (Int128(x) - Int128(start)) % Int128(step) == 0
    }

    /// Python's `repr`: `range(0, 3)` or `range(0, 10, 2)`.
    var repr: String { step == 1 ? "range(\(start), \(stop))" : "range(\(start), \(stop), \(step))" }
}
