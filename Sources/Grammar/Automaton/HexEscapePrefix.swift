/// Whether the hex digits of a `\u` escape read so far can still finish as a code unit the string
/// takes, for frames that decode their value (`StringSpec.tracksValue`): a first escape may not
/// be a lone low surrogate (`DC00`–`DFFF`), the escape after a high surrogate (`high`, else 0)
/// must be one, and with patterns some character the unit can still become must be one they take
/// (`scalarsLive`, over ranges of Unicode scalars; nil without patterns).
///
/// Refusing a digit that no later digit could make valid keeps every admitted prefix finishable:
/// otherwise `\udc`, `\u00` after a high surrogate, or `\u1` under `^[a-z]*$` would be admitted
/// and then leave nothing.
func hexEscapePrefixCanFinish(_ value: Int32, digits: Int32, high: Int32,
                              scalarsLive: ((UInt32, UInt32) -> Bool)?) -> Bool {
    let shift = 4 * (4 - digits)
    let first = UInt32(value) << UInt32(shift), last = ((UInt32(value) + 1) << UInt32(shift)) - 1
    if high != 0 {
        let lo = max(first, 0xDC00), hi = min(last, 0xDFFF)
        guard lo <= hi else { return false }
        guard let scalarsLive else { return true }
        let base = 0x10000 + ((UInt32(high) - 0xD800) << 10)
        return scalarsLive(base + lo - 0xDC00, base + hi - 0xDC00)
    }
    guard first < 0xDC00 || last > 0xDFFF else { return false }
    guard let scalarsLive else { return true }
    // The unit itself (outside the surrogates), or the pairs a high surrogate starts.
    for (a, b) in [(UInt32(0), UInt32(0xD7FF)), (0xE000, 0xFFFF)] where max(first, a) <= min(last, b) {
        if scalarsLive(max(first, a), min(last, b)) { return true }
    }
    let lo = max(first, 0xD800), hi = min(last, 0xDBFF)
    return lo <= hi && scalarsLive(0x10000 + ((lo - 0xD800) << 10), 0x10000 + ((hi - 0xD800) << 10) + 0x3FF)
}
