import CTensor
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Element type of a KV cache.
public enum KVCacheType: String, Codable, Sendable, CaseIterable {
    /// Exact: keys and values kept as computed.
    case f32
    /// Half the memory; rounds every key and value to IEEE half (llama.cpp's default).
    case f16
    /// 8.5 bits per value: ggml's Q8_0 blocks (per 32 values of one head an F16 scale and 32
    /// int8), about 0.27 of F32. Needs a head dimension that is a multiple of 32 (`validate`).
    case q8_0

    /// Values that share one scale: a row holds whole blocks (1 for the float types, 32 for Q8_0).
    public var blockLength: Int { self == .q8_0 ? 32 : 1 }

    /// Bytes of one row of `elements` values (a multiple of `blockLength`): what sizes every KV
    /// table, since a Q8_0 value has no whole byte size (34 bytes per 32 values).
    public func rowBytes(elements: Int) -> Int {
        switch self {
        case .f32: 4 * elements
        case .f16: 2 * elements
        case .q8_0: elements / 32 * 34
        }
    }

    /// The `kv_type` the attention kernels take.
    var kernelType: Int32 {
        switch self {
        case .f32: Int32(LOOM_TYPE_F32.rawValue)
        case .f16: Int32(LOOM_TYPE_F16.rawValue)
        case .q8_0: Int32(LOOM_TYPE_Q8_0.rawValue)
        }
    }

    /// Throws unless this type can hold heads of `headDimension` values: Q8_0 blocks run along
    /// a head, so a head must be whole blocks (stories260K's 8-value heads cannot be Q8_0).
    public func validate(headDimension: Int) throws(EngineError) {
        guard headDimension % blockLength == 0 else {
            throw .invalidConfiguration("a \(rawValue) KV cache needs a head dimension that is a multiple of \(blockLength) (its blocks run along each head); this model's is \(headDimension)")
        }
    }
}

/// The keys and values of one sequence, for every layer, at positions `0..<count`.
///
/// Layout: for each layer, keys then values, each `[capacity × kvLength]` elements
/// (`kvLength = kvHeads × headDim`, heads contiguous within a position). `store`, `commit` and
/// `truncate` never allocate.
///
/// Memory: the whole capacity is reserved up front as one anonymous mapping, and the kernel
/// commits physical pages on first write, so resident memory grows with the positions in use,
/// in 4 KiB steps per layer table, while pointers never move and nothing is ever copied.
/// Measured for SmolLM2 (30 layers × 192, F32) at 4096 positions: 180 MB reserved, +0 MB
/// resident at creation, +2.8 MB after 64 positions, +22.8 MB after 512. The alternatives
/// measured against it: committing everything at creation (`LOOM_KV_POPULATE=1`, kept as a
/// knob) costs the full 180 MB per sequence whatever its length, for no decode speed-up
/// (`loom generate --context 4096 -n 32` on SmolLM2: peak RSS 153 MB lazily vs 336 MB populated,
/// decode no faster populated, 2 runs each); growing a heap buffer in chunks would copy every
/// table at each growth (doubling from 256 to 4096 positions copies 169 MB) and move the
/// pointers the attention kernel reads.
///
/// A single-sequence cache for scoring (`Transformer.evaluateAll`, `loom logits`) and the storage
/// of the scheduler's `KVBlockPool`, whose positions are the pool's rows.
public final class KVCache {
    /// Element type.
    public let type: KVCacheType
    /// Layers.
    public let layerCount: Int
    /// Elements per position per layer (kv heads × head dimension).
    public let kvLength: Int
    /// Positions the cache can hold.
    public let capacity: Int
    /// Positions filled (`0..<count` are valid).
    public private(set) var count = 0

    private let storage: UnsafeMutableRawPointer
    private let mappedBytes: Int
    private let layerBytes: Int
    private let tableBytes: Int

    /// A cache for `layers` layers of `kvLength` elements per position, holding `capacity` positions.
    public init(type: KVCacheType, layers: Int, kvLength: Int, capacity: Int) throws(EngineError) {
        guard layers > 0, kvLength > 0, capacity > 0 else {
            throw .invalidConfiguration("KV cache needs positive layers, width and capacity (\(layers), \(kvLength), \(capacity))")
        }
        guard kvLength % type.blockLength == 0 else {
            throw .invalidConfiguration("a \(type.rawValue) KV row of \(kvLength) values is not whole blocks of \(type.blockLength)")
        }
        let (table, o1) = capacity.multipliedReportingOverflow(by: type.rowBytes(elements: kvLength))
        let (total, o2) = table.multipliedReportingOverflow(by: 2 * layers)
        guard !o1, !o2 else { throw .invalidConfiguration("KV cache of \(capacity) positions is too large") }
        self.type = type
        layerCount = layers
        self.kvLength = kvLength
        self.capacity = capacity
        tableBytes = table
        layerBytes = 2 * table
        var flags = MAP_PRIVATE | MAP_ANONYMOUS
        #if os(Linux)
        if KVCache.populate { flags |= MAP_POPULATE }
        #endif
        guard let mapped = mmap(nil, total, PROT_READ | PROT_WRITE, flags, -1, 0), mapped != MAP_FAILED else {
            throw .invalidConfiguration("could not reserve \(total) bytes for a KV cache of \(capacity) positions")
        }
        storage = mapped
        mappedBytes = total
    }

    deinit { munmap(storage, mappedBytes) }

    /// `LOOM_KV_POPULATE=1`: commit every page at creation instead of on first write (for
    /// measuring the two against each other).
    private static let populate: Bool = {
        guard let v = getenv("LOOM_KV_POPULATE") else { return false }
        return String(cString: v) == "1"
    }()

    /// Keys of `layer` (position-major, `kvLength` elements each).
    @inlinable public func keys(layer: Int) -> UnsafeRawPointer { UnsafeRawPointer(mutableKeys(layer: layer)) }
    /// Values of `layer`.
    @inlinable public func values(layer: Int) -> UnsafeRawPointer { UnsafeRawPointer(mutableValues(layer: layer)) }

    @usableFromInline func mutableKeys(layer: Int) -> UnsafeMutableRawPointer { storage + layer * layerBytes }
    @usableFromInline func mutableValues(layer: Int) -> UnsafeMutableRawPointer { storage + layer * layerBytes + tableBytes }

    /// Writes one position's key and value for one layer (converted to the cache type).
    /// `position` must be below `capacity`; it becomes valid once `commit(through:)` covers it.
    public func store(layer: Int, position: Int, key: UnsafePointer<Float>, value: UnsafePointer<Float>) {
        precondition(layer >= 0 && layer < layerCount && position >= 0 && position < capacity)
        let offset = position * positionBytes, t = type.kernelType, n = Int64(kvLength)
        // Row lengths were checked against the type at init, so the kernel cannot refuse them.
        _ = loom_kv_store_row(t, mutableKeys(layer: layer) + offset, key, n)
        _ = loom_kv_store_row(t, mutableValues(layer: layer) + offset, value, n)
    }

    /// Marks positions `0..<newCount` valid after a forward pass stored them in every layer.
    public func commit(count newCount: Int) {
        precondition(newCount >= count && newCount <= capacity)
        count = newCount
    }

    /// Forgets positions `n...` (for rollback or prefix reuse); `n` may not exceed `count`.
    public func truncate(to n: Int) {
        precondition(n >= 0 && n <= count, "truncate(to: \(n)) beyond count \(count)")
        count = n
    }

    /// Forgets every position.
    public func reset() { count = 0 }

    /// Bytes one position occupies in one layer's key table (the value table is the same size).
    public var positionBytes: Int { type.rowBytes(elements: kvLength) }

    /// Bytes of keys and values that `count` positions hold across every layer.
    public func byteCount(positions: Int) -> Int { 2 * layerCount * positions * positionBytes }

    /// Copies `count` positions starting at `source` to `destination` in every layer (ranges may
    /// not overlap): a paged pool's copy-on-write of a partly shared block.
    func copyRows(from source: Int, to destination: Int, count: Int) {
        precondition(source >= 0 && destination >= 0 && source + count <= capacity && destination + count <= capacity)
        let pb = positionBytes, bytes = count * pb
        for l in 0..<layerCount {
            (mutableKeys(layer: l) + destination * pb).copyMemory(from: keys(layer: l) + source * pb, byteCount: bytes)
            (mutableValues(layer: l) + destination * pb).copyMemory(from: values(layer: l) + source * pb, byteCount: bytes)
        }
    }
}
