/// The output bytes of every token in one flat buffer: what a grammar engine needs to build its
/// token trie without touching the tokenizer again (the Grammar module does not import Engine).
public struct TokenByteTable: Sendable {
    /// All pieces concatenated.
    public let bytes: [UInt8]
    /// Token `id`'s bytes are `bytes[Int(offsets[id])..<Int(offsets[id + 1])]`; `offsets.count` is
    /// the vocabulary size + 1.
    public let offsets: [Int32]

    /// Number of tokens.
    public var count: Int { offsets.count - 1 }

    /// The bytes of token `id` (which must be in `0..<count`).
    public subscript(id: Int) -> ArraySlice<UInt8> { bytes[Int(offsets[id])..<Int(offsets[id + 1])] }
}

extension Tokenizer {
    /// Every token's bytes as `tokenBytes(_:)` gives them (control/unknown/unused tokens empty),
    /// or with control tokens rendered as their text when `renderSpecial` is true.
    public func tokenByteTable(renderSpecial: Bool = false) -> TokenByteTable {
        if renderSpecial { return TokenByteTable(bytes: pieces.bytes, offsets: pieces.starts) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pieces.bytes.count)
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(vocabularySize + 1)
        for id in 0..<vocabularySize {
            bytes.append(contentsOf: pieces.bytes[pieces.range(id, renderSpecial: false)])
            offsets.append(Int32(bytes.count))
        }
        return TokenByteTable(bytes: bytes, offsets: offsets)
    }
}
