/// Token ids by the exact bytes of their text, the last id winning as in llama.cpp's
/// `token_to_id` map.
///
/// Byte-exact on purpose: a `String`-keyed dictionary would treat canonically equivalent texts
/// (`"e\u{301}"`, `"é"`) as one key, which llama.cpp's byte-string map does not, and hashing every
/// text of a 262,144-token vocabulary as a normalised `String` dominates loading it.
struct TokenTextIndex: Sendable {
    private var table: ByteStringTable
    /// For each distinct text (table entry), the last token that has it.
    private var lastToken: [Int32] = []
    /// For each token, its text's table entry.
    private var entryOfToken: [Int32] = []

    /// Indexes the texts `bytes[starts[i]..<starts[i + 1]]` of tokens `0..<starts.count - 1`.
    init(bytes: [UInt8], starts: [Int32]) {
        let n = starts.count - 1
        table = ByteStringTable(expectedCount: n)
        lastToken.reserveCapacity(n)
        entryOfToken.reserveCapacity(n)
        bytes.withUnsafeBufferPointer { b in
            for i in 0..<n {
                let a = Int(starts[i])
                let (entry, isNew) = table.insert(b.baseAddress.map { $0 + a }, count: Int(starts[i + 1]) - a)
                if isNew { lastToken.append(Int32(i)) } else { lastToken[entry] = Int32(i) }
                entryOfToken.append(Int32(entry))
            }
        }
    }

    /// The last token whose text is exactly `text`, if any.
    subscript(text: String) -> Int32? {
        var t = text
        return t.withUTF8 { table.index(of: $0.baseAddress, count: $0.count) }.map { lastToken[$0] }
    }

    /// Whether token `id` is the one its text maps to: walking the tokens that are, each distinct
    /// text is visited once, as walking llama.cpp's map does.
    func isIndexed(_ id: Int) -> Bool { lastToken[Int(entryOfToken[id])] == Int32(id) }
}
