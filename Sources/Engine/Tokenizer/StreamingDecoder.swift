import LoomJSON

/// Turns token ids into text one at a time, returning only complete UTF-8: a character whose bytes
/// are spread over several tokens (byte-fallback pieces, byte-level BPE) is held back until its
/// last byte arrives, so streamed text never shows half a code point.
///
/// Concatenating every `append` result and `finish()` gives exactly `Tokenizer.decode` of the same
/// ids (when `isStartOfText` is true). Nothing is allocated per token beyond the returned string.
public struct StreamingDecoder: Sendable {
    /// The tokenizer whose pieces are rendered.
    public let tokenizer: Tokenizer
    /// Whether control tokens are rendered as their text.
    public let renderSpecial: Bool
    /// Bytes of an unfinished character (at most 3).
    private var pending: (UInt8, UInt8, UInt8) = (0, 0, 0)
    private var pendingCount = 0
    /// Whether the leading space of the first piece is still to be dropped (SentencePiece prefix).
    private var stripPending: Bool

    /// - Parameters:
    ///   - renderSpecial: render control tokens (`<|im_end|>`) instead of omitting them.
    ///   - isStartOfText: the ids start a text, so the space SentencePiece prefixes is dropped as
    ///     `decode` does. Pass false when continuing after a prompt (generated text keeps its spaces).
    public init(tokenizer: Tokenizer, renderSpecial: Bool = false, isStartOfText: Bool = true) {
        self.tokenizer = tokenizer
        self.renderSpecial = renderSpecial
        self.stripPending = isStartOfText && tokenizer.addSpacePrefix
    }

    /// Adds one token; returns the text it completes (possibly empty).
    public mutating func append(_ id: Int32) throws(TokenizerError) -> String {
        let size = tokenizer.vocabularySize
        guard id >= 0, Int(id) < size else { throw .invalidTokenID(id, vocabularySize: size) }
        let pieces = tokenizer.pieces
        var r = pieces.range(Int(id), renderSpecial: renderSpecial)
        if r.isEmpty { return "" }
        if stripPending {
            stripPending = false
            if pieces.bytes[r.lowerBound] == 0x20 { r = (r.lowerBound + 1)..<r.upperBound }
            if r.isEmpty { return "" }
        }
        return pieces.bytes.withUnsafeBufferPointer { all in
            let piece = UnsafeBufferPointer(rebasing: all[r])
            let held = pendingCount
            // Find where a trailing, still-incomplete character starts in pending + piece.
            let total = held + piece.count
            func byte(_ i: Int) -> UInt8 {
                if i < held { return i == 0 ? pending.0 : i == 1 ? pending.1 : pending.2 }
                return piece[i - held]
            }
            let keep = StreamingDecoder.incompleteSuffixLength(total: total, byte)
            let emit = total - keep
            let text = String(unsafeUninitializedCapacity: emit) { buffer in
                for i in 0..<emit { buffer[i] = byte(i) }
                return emit
            }
            var next: (UInt8, UInt8, UInt8) = (0, 0, 0)
            for k in 0..<keep {
                let b = byte(emit + k)
                if k == 0 { next.0 = b } else if k == 1 { next.1 = b } else { next.2 = b }
            }
            pending = next
            pendingCount = keep
            return text
        }
    }

    /// Returns whatever is held back (an unfinished character, rendered as U+FFFD) and resets.
    public mutating func finish() -> String {
        defer { pendingCount = 0 }
        guard pendingCount > 0 else { return "" }
        let bytes = [pending.0, pending.1, pending.2].prefix(pendingCount)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Length of the suffix that is the valid beginning of a multi-byte character still missing
    /// bytes (0 if the text ends on a character boundary or with bytes that can never complete).
    static func incompleteSuffixLength(total: Int, _ byte: (Int) -> UInt8) -> Int {
        // A character is at most 4 bytes, so its lead byte is among the last 3.
        var k = 1
        while k <= min(3, total) {
            let lead = byte(total - k)
            if lead & 0xC0 == 0x80 { k += 1; continue }  // continuation byte: keep looking back
            // ASCII or a byte that cannot start a character: nothing is pending.
            guard let sequence = UTF8LeadByte(lead), sequence.continuationCount > 0 else { return 0 }
            guard k <= sequence.continuationCount else { return 0 }  // complete (or over-long and invalid anyway)
            // The second byte of some leads has a narrower range; a mismatch can never complete.
            if k >= 2 && !sequence.firstContinuation.contains(byte(total - k + 1)) { return 0 }
            return k
        }
        return 0
    }
}
