/// GPT-2's reversible byte ↔ Unicode mapping used by byte-level BPE vocabularies.
///
/// Printable Latin-1 bytes (`!`…`~`, `¡`…`¬`, `®`…`ÿ`) stand for themselves; the other 68 bytes
/// (controls, space, DEL, NBSP, soft hyphen) are assigned U+0100, U+0101, … in byte order, so that
/// every token text is printable and whitespace-free (space becomes `Ġ`, newline `Ċ`).
enum ByteLevelMapping {
    /// The byte a code point stands for, or nil when it is not part of the mapping.
    @inline(__always)
    static func byte(for scalar: UInt32) -> UInt8? {
        if scalar < 256 { return isSelfMapped(UInt8(scalar)) ? UInt8(scalar) : nil }
        if scalar < 256 + 68 { return unmappedBytes[Int(scalar - 256)] }
        return nil
    }

    private static let unmappedBytes: [UInt8] = (0..<256).map { UInt8($0) }.filter { !isSelfMapped($0) }

    @inline(__always)
    private static func isSelfMapped(_ b: UInt8) -> Bool {
        (0x21...0x7E).contains(b) || (0xA1...0xAC).contains(b) || (0xAE...0xFF).contains(b)
    }

    /// The bytes a byte-level token text stands for, or nil if it contains a code point outside the
    /// mapping (such a text can never come out of byte-level pre-tokenization).
    static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for s in text.unicodeScalars {
            guard let b = byte(for: s.value) else { return nil }
            out.append(b)
        }
        return out
    }

    /// Decodes byte-level UTF-8 text into `out` (replacing its contents); false if the text holds a
    /// code point outside the mapping.
    static func decode(_ utf8: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        var i = 0
        let n = utf8.count
        while i < n {
            let b0 = utf8[i]
            let v: UInt32
            if b0 < 0x80 { v = UInt32(b0); i += 1 }
            else if b0 & 0xE0 == 0xC0, i + 1 < n { v = UInt32(b0 & 0x1F) << 6 | UInt32(utf8[i + 1] & 0x3F); i += 2 }
            else { return false }  // mapped code points are all below U+0800
            guard let b = byte(for: v) else { return false }
            out.append(b)
        }
        return true
    }

    /// Like `decode`, but code points outside the mapping are kept as their own UTF-8 bytes. Used
    /// for rendering, where a stray character is better shown than dropped.
    static func decodeLeniently(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for s in text.unicodeScalars {
            if let b = byte(for: s.value) { out.append(b) } else { out.append(contentsOf: String(s).utf8) }
        }
        return out
    }
}
