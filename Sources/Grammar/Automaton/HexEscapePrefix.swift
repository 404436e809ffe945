/// Whether the hex digits of a `\u` escape read so far can still finish as a code unit the string
/// takes, for frames that decode their value (`StringSpec.tracksValue`): a first escape may not
/// be a lone low surrogate (`DC00`–`DFFF`), and the escape after a high surrogate must be one.
///
/// Refusing a digit that no fourth digit could make valid keeps every admitted prefix finishable;
/// otherwise `\udc` or, after a high surrogate, `\u00` would be admitted and then leave nothing.
@inline(__always)
func hexEscapePrefixCanFinish(_ value: Int32, digits: Int32, lowHalf: Bool) -> Bool {
    let shift = 4 * (4 - digits)
    let first = value << shift, last = ((value + 1) << shift) - 1
    if lowHalf { return first <= 0xDFFF && last >= 0xDC00 }
    return first < 0xDC00 || last > 0xDFFF
}
