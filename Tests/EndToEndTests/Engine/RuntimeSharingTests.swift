import Foundation
import Engine
import LoomSupport
import Testing

/// Shared weights: one `Model` per file, unmapped with its last user, and many sequences on
/// one model at once giving the same tokens as alone.
@Suite(.serialized, .timeLimit(.minutes(30))) struct RuntimeSharingTests {
    /// The same file gives the same instance; the store holds it only weakly; a file renamed
    /// over the path loads fresh while the old instance lives on for its users.
    @Test func modelStoreSharesAndReleases() throws {
        let store = ModelStore()
        let bytes = try SharedData.bytes("models/stories260K.gguf")
        let path = try SharedData.temporaryFile(bytes: bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }

        weak var released: Model?
        do {
            let a = try store.model(path: path)
            let b = try store.model(path: path)
            #expect(a === b && store.loadedCount == 1)
            released = a
        }
        #expect(released == nil)
        #expect(store.loadedCount == 0)

        let first = try store.model(path: path)
        let replacement = try SharedData.temporaryFile(bytes: bytes)
        #expect(rename(replacement, path) == 0)
        let second = try store.model(path: path)
        #expect(first !== second)
        #expect(try store.model(path: path) === second)
        #expect(store.loadedCount == 2)
        #expect(first.config.vocabularySize == second.config.vocabularySize)

        #expect(throws: ModelLoadError.self) { try store.model(path: path + ".missing") }
    }

    /// File faults: a model file deleted, or replaced by a rename, while an engine uses
    /// it keeps generating the same tokens from its mapping (POSIX keeps the inode until the last
    /// `munmap`); a fresh load sees the new file, or a typed error when there is none.
    @Test(arguments: [false, true])
    func mappedFileDeletedOrReplacedKeepsWorking(replace: Bool) throws {
        let store = ModelStore()
        let bytes = try SharedData.bytes("models/stories260K.gguf")
        let path = try SharedData.temporaryFile(bytes: bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let engine = try SequentialEngine(model: try store.model(path: path),
                                          configuration: TransformerConfiguration(threads: 1, contextLength: 64))
        let prompt = RuntimeFixtures.prompt(8, vocabulary: engine.model.config.vocabularySize, salt: 3)
        func run() throws -> [Int32] {
            var out: [Int32] = []
            try engine.generate(prompt: prompt, sampling: .greedy, maxTokens: 12) { out.append($0) }
            return out
        }
        let before = try run()
        if replace {
            // Different bytes under the same name (its last 4 KiB zeroed).
            var other = bytes
            for i in other.count - 4096..<other.count { other[i] = 0 }
            let replacement = try SharedData.temporaryFile(bytes: other)
            #expect(rename(replacement, path) == 0)
            let fresh = try store.model(path: path)
            #expect(fresh !== engine.model)
        } else {
            #expect(unlink(path) == 0)
            #expect(throws: ModelLoadError.self) { try store.model(path: path) }
        }
        #expect(try run() == before)
        #expect(!before.isEmpty)
    }

    /// An engine keeps its model alive; the mapping goes when the engine and the caller let go.
    @Test func enginesHoldTheirModel() throws {
        let store = ModelStore()
        let path = RuntimeFixtures.stories
        weak var released: Model?
        do {
            let engine = try SequentialEngine(model: try store.model(path: path),
                                              configuration: TransformerConfiguration(contextLength: 16))
            released = engine.model
            #expect(try store.model(path: path) === engine.model)
        }
        #expect(released == nil && store.loadedCount == 0)
    }

    /// Eight sequences on one model (engines on one scheduler, driven from eight threads) give the
    /// tokens each gives alone; they share the system prompt's blocks in the scheduler's pool.
    @Test(arguments: [RuntimeFixtures.stories, SharedData.defaultModel])
    func eightConcurrentSequencesMatchSolo(path: String) throws {
        let model = try ModelStore.shared.model(path: path)
        let vocab = model.config.vocabularySize
        let system = RuntimeFixtures.prompt(16, vocabulary: vocab, salt: 9)
        let prompts = (0..<8).map { system + RuntimeFixtures.prompt(4 + $0, vocabulary: vocab, salt: $0) }
        // Chunks of 8 line up with the 16-token system prompt, so a shared prefix leaves the same
        // chunks to evaluate as a cold run (bitwise-equal logits).
        let config = TransformerConfiguration(threads: 1, maxBatch: 8, contextLength: 128, kvCacheType: .f16)
        let sampling = (0..<8).map { i in
            i % 2 == 0 ? SamplingParameters.greedy : {
                var s = RuntimeFixtures.seeded
                s.seed = UInt64(i)
                return s
            }()
        }
        let maxTokens = 8

        var solo: [[Int32]] = []
        for i in 0..<8 {
            let engine = try SequentialEngine(model: model, configuration: config)
            var out: [Int32] = []
            try engine.generate(prompt: prompts[i], sampling: sampling[i], maxTokens: maxTokens) { out.append($0) }
            solo.append(out)
        }

        let results = Results(count: 8)
        let shared = try Scheduler(model: model, configuration: config,
                                   policy: SchedulerPolicy(maxSequences: 8, prefillChunk: 8, maxPrefillTokensPerStep: 64))
        let done = DispatchGroup()
        for i in 0..<8 {
            done.enter()
            let started = DedicatedThread.start { [prompts, sampling] in
                defer { done.leave() }
                do {
                    let engine = SequentialEngine(scheduler: shared)
                    var out: [Int32] = []
                    try engine.generate(prompt: prompts[i], sampling: sampling[i], maxTokens: maxTokens) { out.append($0) }
                    results.set(i, .success(out))
                } catch {
                    results.set(i, .failure(error))
                }
            }
            if !started { done.leave() }
            #expect(started, "thread \(i) could not be created")
        }
        done.wait()
        for i in 0..<8 {
            #expect(try results.get(i).get() == solo[i], "sequence \(i)")
        }
    }
}

/// Per-thread results of the concurrency test.
private final class Results: Sendable {
    private let values: Locked<[Result<[Int32], any Error>?]>
    init(count: Int) { values = Locked(Array(repeating: nil, count: count)) }
    func set(_ i: Int, _ r: Result<[Int32], any Error>) { values.withLock { $0[i] = r } }
    func get(_ i: Int) -> Result<[Int32], any Error> {
        values.withLock { $0[i] ?? .failure(EngineError.cancelled) }
    }
}
