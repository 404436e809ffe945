/// Whether some Unicode scalar in `lo...hi` (surrogate code points never count) has a UTF-8
/// encoding that `step` takes byte by byte from `start` without dying: the question an escape
/// asks of a string's patterns before its last hex digit, when only a range of characters is known.
///
/// A depth-first walk over the encodings' bytes, one byte range per level, that stops at the first
/// live encoding; `step` returns nil for a dead transition.
func someScalarIsLive<State>(_ lo: UInt32, _ hi: UInt32, from start: State,
                             _ step: (State, UInt8) -> State?) -> Bool {
    // Scalars by encoded length, surrogates left out.
    let lengths: [(UInt32, UInt32, Int)] = [(0, 0x7F, 1), (0x80, 0x7FF, 2), (0x800, 0xD7FF, 3),
                                            (0xE000, 0xFFFF, 3), (0x10000, 0x10FFFF, 4)]
    let leadMarks: [UInt32] = [0, 0, 0xC0, 0xE0, 0xF0]
    for (a, b, n) in lengths {
        let l = max(a, lo), h = min(b, hi)
        guard l <= h else { continue }
        let shift = UInt32(6 * (n - 1))
        for top in (l >> shift)...(h >> shift) {
            guard let next = step(start, UInt8(leadMarks[n] | top)) else { continue }
            if n == 1 || continuationIsLive(top, shift, l, h, next, step) { return true }
        }
    }
    return false
}

/// Continuation bytes for the scalars in `lo...hi` whose bits above `shift` are `prefix`.
private func continuationIsLive<State>(_ prefix: UInt32, _ shift: UInt32, _ lo: UInt32, _ hi: UInt32,
                                       _ state: State, _ step: (State, UInt8) -> State?) -> Bool {
    let next = shift - 6
    let base = prefix << shift
    let first = lo > base ? (lo - base) >> next : 0
    let last = min(63, (hi - base) >> next)
    guard first <= last else { return false }
    for x in first...last {
        guard let s = step(state, UInt8(0x80 | x)) else { continue }
        if next == 0 || continuationIsLive((prefix << 6) | x, next, lo, hi, s, step) { return true }
    }
    return false
}
