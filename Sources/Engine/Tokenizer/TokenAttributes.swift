/// The token types stored in `tokenizer.ggml.token_type` (GGUF specification / llama.cpp).
public enum TokenType: Int32, Sendable, CaseIterable {
    /// No type recorded; rendered as nothing.
    case undefined = 0
    /// Ordinary text.
    case normal = 1
    /// The unknown token (`<unk>`).
    case unknown = 2
    /// A control token (BOS, EOS, chat markers).
    case control = 3
    /// A token added by the model's authors, matched verbatim in input text.
    case userDefined = 4
    /// A reserved, unused slot.
    case unused = 5
    /// A byte-fallback token (`<0xXX>`).
    case byte = 6
}

/// Per-token behaviour flags, derived from `TokenType` plus the adjustments llama.cpp makes at load
/// time (end-of-generation tokens forced to control, `rstrip` for Phi-3 specials, …). Bit values
/// match llama.cpp's `llama_token_attr` so that dumps compare directly.
public struct TokenAttributes: OptionSet, Sendable, Hashable {
    /// The bits, as llama.cpp's `llama_token_attr`.
    public let rawValue: UInt16
    /// Attributes from raw bits.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The vocabulary's unknown token (`<unk>`).
    public static let unknown = TokenAttributes(rawValue: 1 << 0)
    /// Reserved and never produced.
    public static let unused = TokenAttributes(rawValue: 1 << 1)
    /// An ordinary piece of text.
    public static let normal = TokenAttributes(rawValue: 1 << 2)
    /// A control token (BOS, EOS, chat markers): rendered only on request, never produced from plain text.
    public static let control = TokenAttributes(rawValue: 1 << 3)
    /// A user-defined token: always split out of input text before tokenization, rendered verbatim.
    public static let userDefined = TokenAttributes(rawValue: 1 << 4)
    /// A byte-fallback token (`<0xXX>`).
    public static let byte = TokenAttributes(rawValue: 1 << 5)
    /// Whitespace to the left of this special token is removed when it is split out of the text.
    public static let leftStrip = TokenAttributes(rawValue: 1 << 7)
    /// Whitespace to the right of this special token is removed when it is split out of the text.
    public static let rightStrip = TokenAttributes(rawValue: 1 << 8)

    init(type: Int32) {
        switch TokenType(rawValue: type) {
        case .normal: self = .normal
        case .unknown: self = .unknown
        case .control: self = .control
        case .userDefined: self = .userDefined
        case .unused: self = .unused
        case .byte: self = .byte
        case .undefined, .none: self = []
        }
    }
}
