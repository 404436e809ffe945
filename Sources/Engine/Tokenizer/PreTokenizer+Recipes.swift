/// The pre-tokenizers Loom implements, one row per `tokenizer.ggml.pre` value: adding a
/// pre-tokenizer is one row in `recipes` (and one name in the README's list).
extension PreTokenizer {
    /// What llama.cpp does for one `tokenizer.ggml.pre` value: its expressions and the load-time
    /// flags `llama_vocab::load` sets for it.
    struct Recipe: Sendable {
        let stages: [SplitStage]
        var ignoresMerges = false
        var cleansUpSpaces = true
        var addsBOSByDefault = false

        /// The same recipe without HF's space clean-up when detokenizing.
        var keepingSpaces: Recipe {
            var r = self
            r.cleansUpSpaces = false
            return r
        }

        /// `default`: GPT-2 with punctuation runs split off first and digits in triples.
        static let defaultRecipe = Recipe(stages: [.run(.defaultPunctuation), .gpt2, .run(.number), .asciiDigitTriples])
        /// Llama 3's expression, digits in groups of three; words that are tokens skip merging.
        static let llama3 = Recipe(stages: [.llama3(digitGroup: 3)], ignoresMerges: true, addsBOSByDefault: true)
        /// Llama 3's expression with ordinary merging.
        static let llama3Merging = Recipe(stages: [.llama3(digitGroup: 3)])
        /// Llama 3's expression, words that are tokens skip merging, no BOS by default (GLM-4).
        static let glm4 = Recipe(stages: [.llama3(digitGroup: 3)], ignoresMerges: true)
        static let deepseekLLM = Recipe(stages: [
            .single(.newline), .optionalWhitespaceThenRun(.deepseekLetters), .optionalWhitespaceThenRun(.deepseekPunctuation),
            .trailingWhitespace, .run(.cjk), .run(.number),
        ], cleansUpSpaces: false)
        static let deepseekCoder = Recipe(stages: [
            .single(.newline), .optionalWhitespaceThenRun(.letter), .optionalWhitespaceThenRun(.punctuation),
            .run(.cjk), .single(.number),
        ], cleansUpSpaces: false)
        static let falcon = Recipe(stages: [.run(.falconPunctuation), .gpt2, .asciiDigitTriples])
        /// Every digit on its own, then GPT-2.
        static let starcoder = Recipe(stages: [.single(.number), .gpt2])
        static let gpt2 = Recipe(stages: [.gpt2])
        /// Llama 3's expression with single digits (Qwen2 writes `\p{N}`).
        static let qwen2 = Recipe(stages: [.llama3(digitGroup: 1)])
        /// Lines and runs of line feeds first (`[^\n]+|[\n]+`), then Qwen2's expression (Laguna).
        static let laguna = Recipe(stages: [.run(.lineFeed), .llama3(digitGroup: 1)], cleansUpSpaces: false)
        /// Qwen2's expression whose words take combining marks along (`[\p{L}\p{M}]+`).
        static let qwen35 = Recipe(stages: [.llama3(digitGroup: 1, letters: [.letter, .mark])])
    }

    /// Every `tokenizer.ggml.pre` value Loom accepts.
    static let recipes: [String: Recipe] = [
        "default": .defaultRecipe,

        "llama3": .llama3,
        "llama-v3": .llama3,
        "llama-bpe": .llama3,
        "falcon3": .llama3,
        "falcon-h1": .llama3,
        "pixtral": .llama3,
        "midm-2.0": .llama3,
        "lfm2": .llama3,
        "jina-v5-nano": .llama3,
        "dbrx": .llama3Merging,
        "chatglm-bpe": .llama3Merging,
        "glm4": .glm4,
        "glm5": .glm4,
        "smaug-bpe": .llama3Merging,

        "deepseek-llm": .deepseekLLM,
        "deepseek-coder": .deepseekCoder,
        "falcon": .falcon,

        "starcoder": .starcoder,
        "refact": .starcoder,
        "smollm": .starcoder.keepingSpaces,
        "codeshell": .starcoder,
        "exaone": .starcoder,
        "minerva-7b": .starcoder,
        "mellum2": .starcoder,
        "command-r": .starcoder.keepingSpaces,

        "gpt-2": .gpt2,
        "phi-2": .gpt2,
        "jina-es": .gpt2,
        "jina-de": .gpt2,
        "gigachat": .gpt2,
        "jina-v2-es": .gpt2,
        "jina-v2-de": .gpt2,
        "a.x-4.0": .gpt2,
        "mellum": .gpt2,
        "modern-bert": .gpt2,
        "jina-v1-en": .gpt2,
        "jina-v2-code": .gpt2,
        "roberta-bpe": .gpt2,
        "mpt": .gpt2,
        "olmo": .gpt2,
        "jais": .gpt2,
        "exaone4": .gpt2,
        // Not a llama.cpp name, but GPT-NeoX tokenizers use exactly the GPT-2 expression
        // (llama.cpp's MPT/OLMo types are NeoX tokenizers).
        "gpt-neox": .gpt2,
        "trillion": .gpt2.keepingSpaces,
        "granite-docling": .gpt2.keepingSpaces,

        "qwen2": .qwen2.keepingSpaces,
        "deepseek-r1-qwen": .qwen2.keepingSpaces,
        "kormo": .qwen2.keepingSpaces,
        "f2llmv2": .qwen2.keepingSpaces,
        "grok-2": .qwen2.keepingSpaces,
        "laguna": .laguna,
        "qwen35": .qwen35.keepingSpaces,
        "megrez": .qwen2,
        "stablelm2": .qwen2,
        "hunyuan": .qwen2.keepingSpaces,
        "solar-open": .qwen2.keepingSpaces,
    ]
}
