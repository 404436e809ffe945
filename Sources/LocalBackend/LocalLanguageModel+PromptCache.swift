import Engine

extension LocalLanguageModel {
    /// Waits until every prompt block this model's runtime has evaluated so far is written to
    /// its `promptCache` directory (returns at once without a prompt cache or a loaded runtime).
    /// Call it before a process that should leave its prompts cached exits; writes otherwise
    /// land within about a second of each evaluation.
    public func flushPromptCache() async {
        guard promptCache != nil, let runtime = LocalRuntime.live(for: executorConfiguration) else { return }
        let scheduler = runtime.scheduler
        _ = try? await WorkerThread.run { scheduler.flushPromptCache() }
    }

    /// Counters of this model's persistent prompt cache (hits, misses, writes, rejected files,
    /// evictions, bytes on disk); nil without a prompt cache or a loaded runtime.
    public var promptCacheStatistics: PromptCacheStore.Statistics? {
        guard promptCache != nil else { return nil }
        return LocalRuntime.live(for: executorConfiguration)?.scheduler.promptCache?.statistics
    }
}
