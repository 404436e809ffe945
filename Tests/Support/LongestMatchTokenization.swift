/// Splits `bytes` into tokens from left to right, each the longest entry of `tokenIDs` that
/// matches there: the stand-in tokenizer of the grammar suites, whose byte-level vocabularies
/// hold every single byte, so a match always exists.
///
/// - Parameters:
///   - tokenIDs: token bytes → token id, for every token the tokenizer may produce.
///   - maxLength: the longest key of `tokenIDs`, in bytes.
public func longestMatchTokens(_ bytes: [UInt8], tokenIDs: [[UInt8]: Int], maxLength: Int) -> [Int] {
    var out: [Int] = []
    var i = 0
    while i < bytes.count {
        var n = min(maxLength, bytes.count - i)
        while n > 1, tokenIDs[Array(bytes[i..<(i + n)])] == nil { n -= 1 }
        guard let id = tokenIDs[Array(bytes[i..<(i + n)])] else {
            preconditionFailure("byte \(bytes[i]) at \(i) is not a token of the vocabulary")
        }
        out.append(id)
        i += n
    }
    return out
}
