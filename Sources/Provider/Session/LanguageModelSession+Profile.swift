extension LanguageModelSession {
    /// A session run by `profile`: before every request the profile is resolved, and its model,
    /// instructions, tool-calling mode, transcript policy and history transforms apply to that
    /// request. Requests run on `defaultModel` while the active profile names no model.
    ///
    /// The transcript starts with the profile's instructions (and the tools' definitions).
    /// `import Loom` adds `LanguageModelSession(profile:)`, whose default model is
    /// `SystemLanguageModel.default`.
    public convenience init(profile: some DynamicProfile, defaultModel: some LanguageModel, tools: [any Tool] = []) {
        self.init(model: defaultModel, tools: tools, instructions: profile.resolved.instructions)
        state.withLock { $0.profile = profile }
    }

    /// The profile read before every request; nil runs every request on the session's model
    /// with its own settings. Replacing it switches model, instructions or modes from the next
    /// request on; the transcript carries over. A Loom addition: Apple's profiles change through
    /// the state their body reads.
    public var profile: (any DynamicProfile)? {
        get { state.withLock { $0.profile } }
        set { state.withLock { $0.profile = newValue } }
    }

    /// The settings the next request runs with: the active profile over the session's defaults.
    struct ActiveProfile {
        var driver: any ModelDriver
        var resolution: DynamicProfileResolution
    }

    /// Resolves the profile (user code: never under the session's lock).
    func activeProfile() -> ActiveProfile {
        guard let profile = self.profile else { return ActiveProfile(driver: defaultDriver, resolution: DynamicProfileResolution()) }
        let resolution = profile.resolved
        return ActiveProfile(driver: resolution.model.map { makeDriver($0) } ?? defaultDriver, resolution: resolution)
    }

    /// The driver of the model the next request runs on.
    func activeDriver() -> any ModelDriver { activeProfile().driver }
}

extension Transcript {
    /// The transcript led by instructions made of `segments`, keeping the tool definitions of
    /// the instructions entry it replaces.
    func leading(withInstructions segments: [Segment]) -> Transcript {
        var copy = self
        if case .instructions(var existing)? = copy.entries.first {
            if TextJoining.sameContent(existing.segments, segments) { return self }
            existing.segments = segments
            copy.entries[0] = .instructions(existing)
        } else {
            copy.entries.insert(.instructions(Transcript.Instructions(segments: segments, toolDefinitions: [])), at: 0)
        }
        return copy
    }
}
