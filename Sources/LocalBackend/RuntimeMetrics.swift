import Engine
import LoomMetrics

/// What one runtime records into the registry its model was given: the per-request series
/// (`RequestMetrics`), grammar compile and mask times, and — read from the scheduler, its KV pool
/// and the engine pool when a snapshot is taken — sequences running and queued, KV blocks and
/// bytes, and the prefix cache's counters. Sources hold the runtime's parts weakly, so a runtime
/// that goes away leaves the registry's series to the ones still alive; several runtimes sharing
/// one registry add up.
final class RuntimeMetrics: Sendable {
    let requests: RequestMetrics
    /// `loom_grammar_compile_seconds`: compiling a schema or tool set into a grammar (cache misses).
    let grammarCompile: Histogram
    /// `loom_grammar_mask_seconds`: computing one token mask.
    let grammarMask: Histogram

    /// Buckets for a grammar compile, 1 ms to 10 s.
    static let compileBuckets: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Buckets for one token mask, 10 µs to 50 ms.
    static let maskBuckets: [Double] = [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05]

    init(registry: MetricsRegistry, scheduler: Scheduler, pool: EnginePool, warmGuides: WarmGuides) {
        requests = RequestMetrics(registry: registry)
        grammarCompile = registry.histogram(
            "loom_grammar_compile_seconds", help: "Seconds compiling a JSON Schema or tool set into a grammar (cache misses only).",
            buckets: Self.compileBuckets)
        grammarMask = registry.histogram(
            "loom_grammar_mask_seconds", help: "Seconds computing the grammar's token mask for one step of guided generation.",
            buckets: Self.maskBuckets)

        let blockBytes = Double(scheduler.kvBlockBytes)
        // A sliding-window model's local layers have a pool of their own (bytes count both;
        // block counts are the global pool's, one block per 16 positions of every sequence).
        let localBlockBytes = Double(scheduler.localKVBlockBytes ?? 0)
        let bytes: @Sendable (Int, Int?) -> Double = { global, local in
            Double(global) * blockBytes + Double(local ?? 0) * localBlockBytes
        }
        func gauge(_ name: String, _ help: String, _ read: @escaping @Sendable (SchedulerStatistics) -> Double) {
            registry.gauge(name, help: help, source: { [weak scheduler] in scheduler.map { read($0.statistics) } })
        }
        func counter(_ name: String, _ help: String, _ read: @escaping @Sendable (SchedulerStatistics) -> Double) {
            registry.counter(name, help: help, source: { [weak scheduler] in scheduler.map { read($0.statistics) } })
        }
        gauge("loom_sequences_running", "Sequences the scheduler is decoding now.") { Double($0.running) }
        registry.gauge("loom_sequences_queued", help: "Sequences waiting for a place in the scheduler (KV budget or admission).",
                       source: { [weak scheduler, weak pool] in
                           guard let scheduler, let pool else { return nil }
                           return Double(scheduler.statistics.waiting + pool.waiting)
                       })
        gauge("loom_kv_blocks", "KV blocks in the pool.") { Double($0.pool.blockCount) }
        gauge("loom_kv_blocks_in_use", "KV blocks some sequence holds now.") { Double($0.pool.blocksInUse) }
        gauge("loom_kv_blocks_free", "KV blocks no sequence holds (free, or keeping a cached prefix).") {
            Double($0.pool.blockCount - $0.pool.blocksInUse)
        }
        gauge("loom_kv_bytes_in_use", "Bytes of KV blocks some sequence holds now.") {
            bytes($0.pool.blocksInUse, $0.localPool?.blocksInUse)
        }
        gauge("loom_kv_bytes_free", "Bytes of KV blocks no sequence holds.") {
            bytes($0.pool.blockCount - $0.pool.blocksInUse, $0.localPool.map { $0.blockCount - $0.blocksInUse })
        }
        gauge("loom_kv_cached_prefix_bytes", "Bytes of unheld KV blocks that keep a reusable prompt prefix.") {
            bytes($0.pool.cachedBlocks, $0.localPool?.cachedBlocks)
        }
        counter("loom_kv_prefix_hits_total", "Prompt lookups that reused cached KV positions.") { Double($0.pool.hits) }
        counter("loom_kv_prefix_misses_total", "Prompt lookups that reused nothing.") { Double($0.pool.misses) }
        counter("loom_kv_evictions_total", "Cached KV blocks given up to make room.") { Double($0.pool.evictions) }
        if scheduler.promptCache != nil {
            func cache(_ name: String, _ help: String, gauge: Bool = false,
                       _ read: @escaping @Sendable (PromptCacheStore.Statistics) -> Int) {
                let source: @Sendable () -> Double? = { [weak scheduler] in
                    scheduler?.promptCache.map { Double(read($0.statistics)) }
                }
                if gauge { registry.gauge(name, help: help, source: source) } else { registry.counter(name, help: help, source: source) }
            }
            cache("loom_prompt_cache_hits_total", "KV blocks loaded from the persistent prompt cache instead of evaluated.") { $0.hits }
            cache("loom_prompt_cache_misses_total", "Prompt-cache lookups that found no file for a prompt's next block.") { $0.misses }
            cache("loom_prompt_cache_writes_total", "KV blocks written to the persistent prompt cache.") { $0.writes }
            cache("loom_prompt_cache_rejected_total", "Prompt-cache files ignored as truncated, damaged or foreign.") { $0.rejected }
            cache("loom_prompt_cache_evictions_total", "Prompt-cache files removed to stay within the byte budget.") { $0.evictions }
            cache("loom_prompt_cache_bytes", "Bytes of files in the persistent prompt cache directory.", gauge: true) { $0.bytes }
        }
        func warm(_ name: String, _ help: String, gauge: Bool, _ read: @escaping @Sendable (WarmGuides.Statistics) -> Int) {
            let source: @Sendable () -> Double? = { [weak warmGuides] in warmGuides.map { Double(read($0.statistics)) } }
            if gauge { registry.gauge(name, help: help, source: source) } else { registry.counter(name, help: help, source: source) }
        }
        warm("loom_grammar_warm_guides", "Matchers kept warm for later requests of their schema.", gauge: true) { $0.guides }
        warm("loom_grammar_warm_bytes", "Bytes of automata and masks the warm matchers hold.", gauge: true) { $0.bytes }
        warm("loom_grammar_warm_hits_total", "Guided requests that took a warm matcher.", gauge: false) { $0.hits }
        warm("loom_grammar_warm_misses_total", "Guided requests that built a cold matcher.", gauge: false) { $0.misses }
        counter("loom_scheduler_steps_total", "Forward passes the scheduler ran.") { Double($0.steps) }
        counter("loom_scheduler_preemptions_total", "Sequences preempted when the KV pool ran out (recomputed later).") {
            Double($0.preemptions)
        }
    }
}
