/// What a UTF-8 lead byte starts: how many continuation bytes follow it, and the range of the
/// first one (Unicode Table 3-7, "Well-Formed UTF-8 Byte Sequences").
///
/// The one copy of that table: the grammar's string states, the tokenizer's streaming decoder
/// and the grammar's UTF-8 validator all read it. Every continuation byte after the first lies
/// in `0x80...0xBF`; the first is narrower after `E0` (no overlong forms), `ED` (no surrogates),
/// `F0` (no overlong forms) and `F4` (nothing above U+10FFFF).
public struct UTF8LeadByte: Sendable, Hashable {
    /// Continuation bytes that follow the lead (0 for ASCII, at most 3).
    public let continuationCount: Int
    /// The bytes the first continuation may be (`0x80...0xBF` for ASCII, where there is none).
    public let firstContinuation: ClosedRange<UInt8>

    /// The sequence `lead` starts; nil when `lead` starts no well-formed sequence (a continuation
    /// byte, `C0`, `C1`, or `F5...FF`).
    @inlinable
    public init?(_ lead: UInt8) {
        switch lead {
        case 0x00...0x7F: (continuationCount, firstContinuation) = (0, 0x80...0xBF)
        case 0xC2...0xDF: (continuationCount, firstContinuation) = (1, 0x80...0xBF)
        case 0xE0: (continuationCount, firstContinuation) = (2, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (continuationCount, firstContinuation) = (2, 0x80...0xBF)
        case 0xED: (continuationCount, firstContinuation) = (2, 0x80...0x9F)
        case 0xF0: (continuationCount, firstContinuation) = (3, 0x90...0xBF)
        case 0xF1...0xF3: (continuationCount, firstContinuation) = (3, 0x80...0xBF)
        case 0xF4: (continuationCount, firstContinuation) = (3, 0x80...0x8F)
        default: return nil
        }
    }
}
