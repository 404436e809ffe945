/// Why a tokenizer could not be built from a GGUF file's metadata, or why a request to it is invalid.
///
/// Building never falls back to a guessed tokenizer: an unknown `tokenizer.ggml.model` or
/// `tokenizer.ggml.pre` is reported, because a wrong pre-tokenizer silently produces token ids the
/// model was never trained on.
public enum TokenizerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A metadata key the tokenizer needs is absent.
    case missingKey(String)
    /// A metadata key holds a value of the wrong type (e.g. a string where an array was expected).
    case wrongValueType(key: String, expected: String)
    /// `tokenizer.ggml.model` names a tokenizer Loom does not implement.
    case unsupportedModel(String)
    /// `tokenizer.ggml.pre` names a pre-tokenizer Loom does not know.
    case unknownPreTokenizer(String)
    /// A per-token array (scores, types) does not have one entry per token.
    case lengthMismatch(key: String, expected: Int, found: Int)
    /// The vocabulary is empty or larger than token ids (`Int32`) can address.
    case badVocabularySize(Int)
    /// A special-token key (`tokenizer.ggml.bos_token_id`, …) names an id outside the vocabulary.
    case specialTokenOutOfRange(key: String, id: Int, vocabularySize: Int)
    /// A token id passed to `decode`/`StreamingDecoder` is outside `0..<vocabularySize`.
    case invalidTokenID(Int32, vocabularySize: Int)

    /// A one-line explanation naming the key or id at fault.
    public var description: String {
        switch self {
        case .missingKey(let key): return "tokenizer: missing metadata key '\(key)'"
        case .wrongValueType(let key, let expected): return "tokenizer: metadata key '\(key)' should be \(expected)"
        case .unsupportedModel(let name):
            return "tokenizer: unsupported tokenizer.ggml.model '\(name)' (Loom implements 'llama' (SentencePiece) and 'gpt2' (byte-level BPE))"
        case .unknownPreTokenizer(let name): return "tokenizer: unknown tokenizer.ggml.pre '\(name)'"
        case .lengthMismatch(let key, let expected, let found):
            return "tokenizer: '\(key)' has \(found) entries, expected one per token (\(expected))"
        case .badVocabularySize(let n): return "tokenizer: unusable vocabulary size \(n)"
        case .specialTokenOutOfRange(let key, let id, let size):
            return "tokenizer: '\(key)' = \(id) is outside the vocabulary of \(size) tokens"
        case .invalidTokenID(let id, let size): return "tokenizer: token id \(id) is outside 0..<\(size)"
        }
    }
}
