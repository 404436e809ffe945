import AllocationCounter
import CTensor
@testable import Engine
import Testing

/// The per-token path allocates nothing: after a warm-up, decode steps make no heap allocation
/// on the calling thread or on the transformer's kernel threads (counted by interposing the
/// allocator, `Tests/AllocationCounter`).
@Suite(.serialized, .timeLimit(.minutes(30))) struct DecodeAllocationTests {
    /// Llama, and gemma3 for the steps only some families take (head and post-branch norms,
    /// GeGLU, sliding-window attention).
    static let models = [SharedData.path("models/stories260K.gguf"), SharedData.defaultModel,
                         SharedData.path("models/fixtures/synth-gemma3-q4_k_m.gguf")]

    /// Counts the allocations `body` makes on this thread and on every thread of `pool`.
    static func allocations(on pool: ThreadPool, _ body: () throws -> Void) rethrows -> Int64 {
        let counter = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        defer { counter.deallocate() }
        counter.initialize(to: 0)
        loom_pool_run(pool.pool, loom_alloc_count_attach_task, UnsafeMutableRawPointer(counter))
        loom_alloc_count_attach(counter)
        defer {
            loom_alloc_count_attach(nil)
            loom_pool_run(pool.pool, loom_alloc_count_attach_task, nil)
        }
        try body()
        return loom_alloc_count_read(counter)
    }

    @Test func counterSeesAllocations() {
        #expect(loom_alloc_count_supported())
        let pool = try! ThreadPool(threads: 2)
        let n = Self.allocations(on: pool) {
            let p = UnsafeMutablePointer<Int>.allocate(capacity: 100)
            p.deallocate()
        }
        #expect(n >= 2)  // at least the malloc and the free
    }

    /// The address of a counter, handed to the scheduler thread's step observer.
    struct CounterAddress: @unchecked Sendable {
        // @unchecked: the counter outlives the scheduler's use of it (the test detaches it
        // before reading), and only the allocation counter writes it.
        let pointer: UnsafeMutablePointer<Int64>

        /// The kernel pool, used only from the scheduler thread that owns it.
        struct PoolAddress: @unchecked Sendable {
            // @unchecked: the observer runs on the scheduler thread, the pool's caller.
            let pool: OpaquePointer
        }
    }

    /// Scheduler steps (a caller-driven sequence's decode rows) allocate nothing on the
    /// scheduler's thread or its kernel threads: counted from the observer of step 6 to that of
    /// step 30, after the warm-up.
    @Test(arguments: models, [1, 2])
    func scheduledStepsAllocateNothing(path: String, threads: Int) throws {
        let model = try ModelStore.shared.model(path: path)
        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(
            threads: threads, maxBatch: 4, contextLength: 64))
        let vocab = Int32(model.config.vocabularySize)
        let counter = CounterAddress(pointer: .allocate(capacity: 1))
        defer { counter.pointer.deallocate() }
        counter.pointer.initialize(to: 0)
        let pool = CounterAddress.PoolAddress(pool: engine.scheduler.core.transformer.pool.pool)
        engine.scheduler.stepObserver = { n in
            if n == 6 {
                loom_pool_run(pool.pool, loom_alloc_count_attach_task, UnsafeMutableRawPointer(counter.pointer))
                loom_alloc_count_attach(counter.pointer)
            } else if n == 30 {
                loom_alloc_count_attach(nil)
                loom_pool_run(pool.pool, loom_alloc_count_attach_task, nil)
            }
        }
        try engine.prefill([1, 2, 3])
        var sink: Float = 0
        for i in 0..<34 {
            let logits = try engine.step(Int32(i * 131 + 7) % vocab)
            sink += logits[0]
        }
        engine.scheduler.stepObserver = nil
        let n = loom_alloc_count_read(counter.pointer)
        #expect(sink.isFinite)
        #expect(n == 0, "\(path) threads \(threads): \(n) allocations in 24 steps")
    }

    @Test(arguments: models)
    func transformerDecodeAllocatesNothing(path: String) throws {
        let model = try ModelStore.shared.model(path: path)
        let transformer = try Transformer(model: model, configuration: TransformerConfiguration(
            threads: 2, maxBatch: 1, contextLength: 40))
        let cache = try transformer.makeCache()
        for i in 0..<4 { _ = try transformer.decode(Int32(i + 1), cache: cache) }
        let n = try Self.allocations(on: transformer.pool) {
            for i in 0..<32 { _ = try transformer.decode(Int32(i * 7 + 3), cache: cache) }
        }
        #expect(n == 0, "\(path): \(n) allocations in 32 decodes")
    }
}
