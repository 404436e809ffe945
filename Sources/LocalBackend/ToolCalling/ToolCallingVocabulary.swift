import Engine
import Provider

/// What tool calling and reasoning need from a tokenizer's vocabulary.
///
/// Markers such as `[TOOL_CALLS]` (Mistral) or `<|python_tag|>` (Llama 3) are *control* tokens:
/// decoding drops them and the grammar's vocabulary sees them as empty (never allowed). The
/// executor therefore decodes the marker tokens listed here as their text, and builds the grammar
/// vocabulary from `grammarTokenBytes`, where those tokens spell their text, so a grammar can
/// require the model's own single marker token instead of letters it was never trained to write.
public enum ToolCallingVocabulary {
    /// The texts of the vocabulary's control and user-defined tokens (`<|im_start|>`, `<think>`, …).
    public static func specialTokenTexts(of tokenizer: Tokenizer) -> Set<String> {
        Set(specialTokenIDs(of: tokenizer).keys)
    }

    /// Control and user-defined token texts with their ids (the first id for a repeated text).
    public static func specialTokenIDs(of tokenizer: Tokenizer) -> [String: Int32] {
        var out: [String: Int32] = [:]
        for id in 0..<Int32(tokenizer.vocabularySize) {
            let a = tokenizer.tokenAttributes(id)
            guard a.contains(.control) || a.contains(.userDefined), let text = tokenizer.tokenText(id), !text.isEmpty else { continue }
            if out[text] == nil { out[text] = id }
        }
        return out
    }

    /// The ids of control tokens whose text is one of `markers`: decode these with their text
    /// (they carry structure the output parser must see). User-defined tokens already decode as text.
    public static func markerTokenIDs(of tokenizer: Tokenizer, markers: [String]) -> Set<Int32> {
        let wanted = Set(markers)
        var out: Set<Int32> = []
        for id in 0..<Int32(tokenizer.vocabularySize) where tokenizer.isControl(id) {
            if let text = tokenizer.tokenText(id), wanted.contains(text) { out.insert(id) }
        }
        return out
    }

    /// Every token's byte string for `GrammarVocabulary`: the decoded bytes, except that
    /// control tokens spelling one of `markers` get their text (so the grammar can emit them).
    public static func grammarTokenBytes(of tokenizer: Tokenizer, markers: [String]) -> [[UInt8]] {
        let special = markerTokenIDs(of: tokenizer, markers: markers)
        var out: [[UInt8]] = []
        out.reserveCapacity(tokenizer.vocabularySize)
        for id in 0..<Int32(tokenizer.vocabularySize) {
            if special.contains(id), let text = tokenizer.tokenText(id) {
                out.append(Array(text.utf8))
            } else {
                out.append(tokenizer.tokenBytes(id))
            }
        }
        return out
    }
}
