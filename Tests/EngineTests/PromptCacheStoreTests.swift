import Foundation
import LoomSupport
import Testing
@testable import Engine

/// The persistent prompt cache's directory, without a model: blocks written in the background
/// read back bit for bit; damaged, truncated and foreign files are rejected (counted, never
/// loaded); the directory stays within its budget, least recently used first; two stores on one
/// directory do not corrupt it; a temporary file left by a crash is never loaded; flushing and
/// closing write everything queued.
@Suite struct PromptCacheStoreTests {
    /// Blocks of 4 positions, 2 layers of 8 F32 elements: 512 bytes of keys and values.
    static let identity = PromptCacheIdentity(modelFingerprint: 0x1234_5678_9abc_def0, kvType: "f32", blockSize: 4,
                                              layers: 2, kvLength: 8, blockBytes: 2 * 2 * 8 * 4 * 4)

    /// A fresh empty directory, removed by the caller.
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loom-pcache-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A store that collects its warnings.
    static func store(_ directory: String, identity: PromptCacheIdentity = identity, budget: Int = 1 << 20,
                      warnings: Warnings = Warnings()) throws -> PromptCacheStore {
        try PromptCacheStore(options: PromptCacheOptions(directory: directory, budgetBytes: budget), identity: identity,
                             warn: { line in warnings.lines.withLock { $0.append(line) } })
    }

    /// The warning lines a store emitted.
    final class Warnings: Sendable {
        let lines = Locked<[String]>([])
        var count: Int { lines.withLock { $0.count } }
    }

    /// Block `i` of a test prefix: its tokens, parent and chain hashes, and payload bytes.
    struct Block {
        var tokens: [Int32]
        var parent: UInt64
        var chain: UInt64
        var payload: [UInt8]
    }

    static func blocks(_ count: Int, salt: Int32 = 0, identity: PromptCacheIdentity = identity) -> [Block] {
        var parent = KVBlockPool.rootHash
        return (0..<count).map { i in
            let tokens = (0..<Int32(identity.blockSize)).map { Int32(i) * 100 + $0 + salt * 10_000 }
            let chain = tokens.withUnsafeBufferPointer { KVBlockPool.hash(parent, $0) }
            let payload = (0..<identity.blockBytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i &* 7 &+ Int(salt)) }
            defer { parent = chain }
            return Block(tokens: tokens, parent: parent, chain: chain, payload: payload)
        }
    }

    static func persist(_ store: PromptCacheStore, _ block: Block) {
        block.tokens.withUnsafeBufferPointer { t in
            store.persist(parent: block.parent, chain: block.chain, tokens: t) { out in
                block.payload.withUnsafeBytes { out.copyMemory(from: $0) }
            }
        }
    }

    /// The block's payload when the store loads it, else nil.
    static func restore(_ store: PromptCacheStore, _ block: Block) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: store.identity.blockBytes)
        let ok = block.tokens.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBytes { store.restore(parent: block.parent, chain: block.chain, tokens: t, into: $0) }
        }
        return ok ? out : nil
    }

    static func path(_ directory: String, _ block: Block, identity: PromptCacheIdentity = identity) -> String {
        directory + "/" + identity.fileName(chain: block.chain)
    }

    @Test func writtenBlocksReadBackInAnotherStore() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let blocks = Self.blocks(3)
        let writer = try Self.store(dir)
        for b in blocks { Self.persist(writer, b) }
        writer.flush()
        #expect(writer.statistics.writes == 3)
        #expect(writer.statistics.pendingWrites == 0)
        writer.close()

        let reader = try Self.store(dir)
        defer { reader.close() }
        for b in blocks { #expect(Self.restore(reader, b) == b.payload) }
        #expect(Self.restore(reader, Self.blocks(1, salt: 9)[0]) == nil)
        let s = reader.statistics
        #expect(s.hits == 3 && s.misses == 1 && s.rejected == 0)
        #expect(s.bytes == 3 * (PromptCacheFile.headerBytes(blockSize: 4) + Self.identity.blockBytes))
    }

    /// What a damaged or foreign file is made from, and what it must be rejected as.
    enum Damage: String, CaseIterable {
        case flippedPayloadByte, flippedHeaderByte, truncated, extended, garbage, empty, newerVersion
        case foreignModel, foreignKVType, foreignBlockBytes, otherTokens
    }

    @Test(arguments: Damage.allCases)
    func damagedOrForeignFilesAreRejected(damage: Damage) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let block = Self.blocks(1)[0]
        var writerIdentity = Self.identity
        switch damage {
        case .foreignModel: writerIdentity.modelFingerprint ^= 1
        case .foreignKVType: writerIdentity.kvType = "q8_0"
        case .foreignBlockBytes: writerIdentity.blockBytes = Self.identity.blockBytes / 2
        default: break
        }
        var written = block
        written.payload = Array(block.payload.prefix(writerIdentity.blockBytes))
        let writer = try Self.store(dir, identity: writerIdentity)
        Self.persist(writer, written)
        writer.close()
        let good = Self.path(dir, block)
        let url = URL(fileURLWithPath: good)
        if writerIdentity != Self.identity {
            // A foreign block under the name this store looks for (a name collision, or a file
            // copied into place).
            try FileManager.default.moveItem(atPath: Self.path(dir, block, identity: writerIdentity), toPath: good)
        }
        var bytes = try [UInt8](Data(contentsOf: url))
        let header = PromptCacheFile.headerBytes(blockSize: 4)
        switch damage {
        case .flippedPayloadByte: bytes[header + 100] ^= 0x10
        case .flippedHeaderByte: bytes[20] ^= 0x01
        case .truncated: bytes.removeLast(7)
        case .extended: bytes.append(0)
        case .garbage: bytes = Array(repeating: 0x5a, count: bytes.count)
        case .empty: bytes = []
        case .newerVersion: bytes[8] = 2
        case .otherTokens:
            // A well-formed file for another prefix under this name: its header is valid.
            var other = block
            other.tokens[2] += 1
            let file = PromptCacheFile.encode(.init(identity: Self.identity, parent: block.parent, chain: block.chain,
                                                    payloadChecksum: block.payload.withUnsafeBytes { ContentHash.hash($0) },
                                                    tokens: other.tokens))
            bytes = file + block.payload
        case .foreignModel, .foreignKVType, .foreignBlockBytes: break
        }
        try Data(bytes).write(to: url)

        let warnings = Warnings()
        let reader = try Self.store(dir, warnings: warnings)
        defer { reader.close() }
        #expect(Self.restore(reader, block) == nil)
        #expect(Self.restore(reader, block) == nil)
        #expect(reader.statistics.rejected == 2)
        #expect(reader.statistics.hits == 0)
        #expect(warnings.count == 1)  // one warning per file, however often it is met

        // Evaluating the block again replaces the bad file with a good one.
        Self.persist(reader, block)
        reader.flush()
        #expect(Self.restore(reader, block) == block.payload)
    }

    @Test func evictionKeepsTheDirectoryWithinBudgetLeastRecentlyUsedFirst() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fileBytes = PromptCacheFile.headerBytes(blockSize: 4) + Self.identity.blockBytes
        let budget = fileBytes * 4 + fileBytes / 2
        let blocks = Self.blocks(7)
        let store = try Self.store(dir, budget: budget)
        defer { store.close() }
        for b in blocks.prefix(4) { Self.persist(store, b) }
        store.flush()
        // Explicit ages (file times may not tell writes a millisecond apart): block 0 oldest.
        for (i, b) in blocks.prefix(4).enumerated() {
            try Self.setModificationTime(Self.path(dir, b), secondsAgo: 1000 - i * 100)
        }
        // Loading block 0 makes it the most recently used.
        #expect(Self.restore(store, blocks[0]) == blocks[0].payload)
        for b in blocks[4...] { Self.persist(store, b) }
        store.flush()
        let total = try Self.cacheFiles(dir).reduce(0) { $0 + $1.size }
        #expect(total <= budget)
        #expect(store.statistics.bytes == total)
        #expect(store.statistics.evictions == 3)
        #expect(FileManager.default.fileExists(atPath: Self.path(dir, blocks[0])))
        #expect(!FileManager.default.fileExists(atPath: Self.path(dir, blocks[1])))
        #expect(FileManager.default.fileExists(atPath: Self.path(dir, blocks[6])))
    }

    @Test func twoStoresWritingOneDirectoryConcurrentlyLeaveOnlyGoodFiles() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try Self.store(dir), b = try Self.store(dir)
        // Both write the same 16 blocks (as two servers evaluating one system prompt) and 16 of
        // their own, from two threads at once.
        let common = Self.blocks(16), onlyA = Self.blocks(16, salt: 1), onlyB = Self.blocks(16, salt: 2)
        async let first: Void = Task.detached { for x in common + onlyA { Self.persist(a, x) }; a.flush() }.value
        async let second: Void = Task.detached { for x in common + onlyB { Self.persist(b, x) }; b.flush() }.value
        _ = await (first, second)
        a.close()
        b.close()
        let reader = try Self.store(dir)
        defer { reader.close() }
        for x in common + onlyA + onlyB { #expect(Self.restore(reader, x) == x.payload) }
        #expect(reader.statistics.rejected == 0)
        #expect(try Self.cacheFiles(dir).count == 48)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".partial") }.isEmpty)
    }

    @Test func aFileLeftMidWriteIsNeverLoadedAndIsRemovedWhenStale() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let block = Self.blocks(1)[0]
        let writer = try Self.store(dir)
        Self.persist(writer, block)
        writer.close()
        // A crash between write and rename: the complete bytes exist only under the temporary name.
        let final = Self.path(dir, block)
        let partial = dir + "/." + Self.identity.fileName(chain: block.chain) + ".4242.1" + PromptCacheFile.partialSuffix
        try FileManager.default.moveItem(atPath: final, toPath: partial)
        let reader = try Self.store(dir)
        #expect(Self.restore(reader, block) == nil)
        #expect(reader.statistics.misses == 1 && reader.statistics.rejected == 0)
        reader.close()
        // A later process's eviction scan removes a temporary file older than any write takes.
        try Self.setModificationTime(partial, secondsAgo: PromptCacheStore.staleTemporarySeconds + 60)
        let later = try Self.store(dir)
        later.close()
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    @Test func closeWritesEverythingQueued() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let blocks = Self.blocks(20)
        let store = try Self.store(dir)
        for b in blocks { Self.persist(store, b) }
        store.close()
        #expect(store.statistics.writes == 20)
        #expect(store.statistics.pendingWrites == 0)
        #expect(try Self.cacheFiles(dir).count == 20)
        // A block already written by this store is not queued again.
        #expect(!store.wants(chain: blocks[3].chain))
    }

    @Test func theChecksumSeesEveryByte() {
        var bytes = [UInt8](repeating: 0, count: 77)
        let base = bytes.withUnsafeBytes { ContentHash.hash($0) }
        for i in bytes.indices {
            bytes[i] = 1
            #expect(bytes.withUnsafeBytes { ContentHash.hash($0) } != base)
            bytes[i] = 0
        }
    }

    static func cacheFiles(_ dir: String) throws -> [(name: String, size: Int)] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(PromptCacheFile.fileExtension) }.map {
            ($0, (try FileManager.default.attributesOfItem(atPath: dir + "/" + $0)[.size] as? Int) ?? 0)
        }
    }

    static func setModificationTime(_ path: String, secondsAgo: Int) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -Double(secondsAgo))],
                                              ofItemAtPath: path)
    }
}
