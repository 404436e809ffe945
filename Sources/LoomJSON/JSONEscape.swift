/// JSON's escapes (RFC 8259 §7): the single-character ones and the hexadecimal digits of
/// `\\uXXXX`, shared by every JSON reader in Loom (the parsers and the grammar's string states).
public enum JSONEscape {
    /// The byte that `\` followed by `byte` stands for, or nil when `byte` does not start a
    /// single-character escape (`u` starts a `\uXXXX` escape; anything else is invalid).
    @inlinable
    public static func unescape(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""): return 0x22
        case UInt8(ascii: "\\"): return 0x5C
        case UInt8(ascii: "/"): return 0x2F
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return nil
        }
    }

    /// The value of a hexadecimal digit (`0-9`, `A-F`, `a-f`) of a `\uXXXX` escape, or nil.
    @inlinable
    public static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte &- 0x30
        case 0x41...0x46: return byte &- 0x41 &+ 10
        case 0x61...0x66: return byte &- 0x61 &+ 10
        default: return nil
        }
    }
}
