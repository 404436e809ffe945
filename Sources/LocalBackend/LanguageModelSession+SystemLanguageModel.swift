import Provider

// Apple's session initializers without a model argument, which run on the system model; on
// Linux that is `SystemLanguageModel.default`, the machine's default local model.
extension LanguageModelSession {
    /// A session on `SystemLanguageModel.default` whose transcript starts with `instructions`
    /// (if any) and the tools' definitions.
    public convenience init(tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.init(model: SystemLanguageModel.default, tools: tools, instructions: instructions)
    }

    /// A session on `SystemLanguageModel.default` with text instructions.
    public convenience init(tools: [any Tool] = [], instructions: String) {
        self.init(model: SystemLanguageModel.default, tools: tools, instructions: Instructions(instructions))
    }

    /// A session on `SystemLanguageModel.default` with instructions built from several pieces.
    public convenience init(tools: [any Tool] = [], @InstructionsBuilder instructions: () throws -> Instructions) rethrows {
        self.init(model: SystemLanguageModel.default, tools: tools, instructions: try instructions())
    }

    /// A session on `SystemLanguageModel.default` that continues `transcript`.
    public convenience init(tools: [any Tool] = [], transcript: Transcript) {
        self.init(model: SystemLanguageModel.default, tools: tools, transcript: transcript)
    }

    /// A session run by `profile`, on `SystemLanguageModel.default` while the active profile
    /// names no model (see `init(profile:defaultModel:tools:)`).
    public convenience init(profile: some DynamicProfile, tools: [any Tool] = []) {
        self.init(profile: profile, defaultModel: SystemLanguageModel.default, tools: tools)
    }
}
