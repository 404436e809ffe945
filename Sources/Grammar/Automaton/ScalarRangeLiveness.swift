/// Whether some Unicode scalar in `lo...hi` (surrogate code points never count) has a UTF-8
/// encoding that `step` takes byte by byte from `start` without dying: the question an escape
/// asks of a string's patterns before its last hex digit, when only a range of characters is known.
///
/// A depth-first walk over the encodings' bytes, one byte range per level, that stops at the first
/// live encoding; `step` returns nil for a dead transition. Below a byte whose whole block of
/// scalars lies inside the range, the answer depends only on the state and the number of bytes
/// left, so it is remembered: a pattern that takes every lead byte and dies on a last byte costs
/// states × 64 per level instead of every scalar of the range (a million for a 4-byte range).
func someScalarIsLive<State: Hashable>(_ lo: UInt32, _ hi: UInt32, from start: State,
                                       _ step: (State, UInt8) -> State?) -> Bool {
    // Scalars by encoded length, surrogates left out.
    let lengths: [(UInt32, UInt32, Int)] = [(0, 0x7F, 1), (0x80, 0x7FF, 2), (0x800, 0xD7FF, 3),
                                            (0xE000, 0xFFFF, 3), (0x10000, 0x10FFFF, 4)]
    let leadMarks: [UInt32] = [0, 0, 0xC0, 0xE0, 0xF0]
    return withoutActuallyEscaping(step) { step in
        var walk = ContinuationWalk(lo: lo, hi: hi, step: step)
        for (a, b, n) in lengths {
            let l = max(a, lo), h = min(b, hi)
            guard l <= h else { continue }
            walk.lo = l
            walk.hi = h
            let shift = UInt32(6 * (n - 1))
            for top in (l >> shift)...(h >> shift) {
                guard let next = step(start, UInt8(leadMarks[n] | top)) else { continue }
                if n == 1 || walk.isLive(top, shift, next) { return true }
            }
        }
        return false
    }
}

/// The continuation bytes of one encoded length, within `lo...hi`.
private struct ContinuationWalk<State: Hashable> {
    var lo: UInt32, hi: UInt32
    let step: (State, UInt8) -> State?
    /// For states below a block wholly inside the range: live or not, by continuation bytes left.
    private var whole: [Int: [State: Bool]] = [:]

    init(lo: UInt32, hi: UInt32, step: @escaping (State, UInt8) -> State?) {
        self.lo = lo
        self.hi = hi
        self.step = step
    }

    /// Continuation bytes for the scalars whose bits above `shift` are `prefix`, from `state`.
    mutating func isLive(_ prefix: UInt32, _ shift: UInt32, _ state: State) -> Bool {
        let base = prefix << shift
        let inside = base >= lo && base + ((1 << shift) - 1) <= hi
        if inside, let known = whole[Int(shift), default: [:]][state] { return known }
        let next = shift - 6
        let first = lo > base ? (lo - base) >> next : 0
        let last = min(63, (hi - base) >> next)
        var live = false
        if first <= last {
            for x in first...last {
                guard let s = step(state, UInt8(0x80 | x)) else { continue }
                if next == 0 || isLive((prefix << 6) | x, next, s) { live = true; break }
            }
        }
        if inside { whole[Int(shift), default: [:]][state] = live }
        return live
    }
}
