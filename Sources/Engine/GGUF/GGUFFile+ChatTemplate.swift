import ChatTemplate

/// Where a GGUF file keeps what `apply_chat_template` needs.
extension GGUFFile {
    /// The default chat template (`tokenizer.chat_template`), or a named one
    /// (`tokenizer.chat_template.<name>`, e.g. `tool_use`). Nil when the model has none: use
    /// `PlainChatFormat` then.
    public func chatTemplateSource(named name: String? = nil) -> String? {
        let key = name.map { "tokenizer.chat_template.\($0)" } ?? "tokenizer.chat_template"
        return metadata[key]?.stringValue
    }

    /// The model's chat template, parsed; nil when the model has none (use `PlainChatFormat`).
    public func chatTemplate(named name: String? = nil, limits: TemplateLimits = .standard) throws(TemplateError) -> ChatTemplate? {
        guard let source = chatTemplateSource(named: name) else { return nil }
        return try ChatTemplate(source: source, limits: limits)
    }

    /// The text of the BOS token (`tokenizer.ggml.tokens[tokenizer.ggml.bos_token_id]`), or "".
    public var bosTokenText: String { specialTokenText("tokenizer.ggml.bos_token_id") }

    /// The text of the EOS token (`tokenizer.ggml.tokens[tokenizer.ggml.eos_token_id]`), or "".
    public var eosTokenText: String { specialTokenText("tokenizer.ggml.eos_token_id") }

    private func specialTokenText(_ idKey: String) -> String {
        guard let id = metadata[idKey]?.intValue, let tokens = metadata["tokenizer.ggml.tokens"]?.arrayValue,
              id >= 0, id < tokens.count else { return "" }
        return tokens[id].stringValue ?? ""
    }
}
