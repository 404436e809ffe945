/// The on-disk format of one persisted KV block: a header, then the block's keys and values.
///
/// Header (little-endian, `96 + 4 × blockSize` bytes):
/// ```
///  0  magic "LOOMKVB\0"          8
///  8  version (UInt32)           4
/// 12  header bytes (UInt32)      4
/// 16  model fingerprint (UInt64) 8
/// 24  KV type name (UTF-8, zero-padded) 16
/// 40  block size, layers, KV length (UInt32 each), reserved (UInt32, 0)
/// 56  block bytes (UInt64)       8
/// 64  parent prefix hash, prefix hash through the block (UInt64 each)
/// 80  payload checksum (UInt64)  8
/// 88  the block's token ids (Int32 × block size)
/// ..  header checksum (UInt64) over every byte before it
/// ```
/// Payload: for each layer, the block's rows of keys then of values, exactly as the pool holds
/// them (`blockBytes` in all). A file is valid only at exactly header plus payload bytes.
enum PromptCacheFile {
    static let magic: [UInt8] = Array("LOOMKVB".utf8) + [0]
    /// Bumped whenever the layout above changes: older files are then ignored, never misread.
    static let version: UInt32 = 1
    /// The extension of complete files; anything else in the directory is never loaded.
    static let fileExtension = ".loomkv"
    /// The suffix of files being written (renamed to their final name once complete).
    static let partialSuffix = ".partial"

    /// Header bytes for blocks of `blockSize` positions.
    static func headerBytes(blockSize: Int) -> Int { 96 + 4 * blockSize }

    /// What a header says about its block.
    struct Header: Equatable {
        var identity: PromptCacheIdentity
        var parent: UInt64
        var chain: UInt64
        var payloadChecksum: UInt64
        var tokens: [Int32]
    }

    /// The header of a block.
    static func encode(_ h: Header) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(headerBytes(blockSize: h.identity.blockSize))
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: magic)
        put(version)
        put(UInt32(headerBytes(blockSize: h.identity.blockSize)))
        put(h.identity.modelFingerprint)
        var name = Array(h.identity.kvType.utf8.prefix(16))
        while name.count < 16 { name.append(0) }
        out.append(contentsOf: name)
        put(UInt32(h.identity.blockSize))
        put(UInt32(h.identity.layers))
        put(UInt32(h.identity.kvLength))
        put(UInt32(0))
        put(UInt64(h.identity.blockBytes))
        put(h.parent)
        put(h.chain)
        put(h.payloadChecksum)
        for t in h.tokens { put(t) }
        let checksum = out.withUnsafeBytes { ContentHash.hash($0) }
        put(checksum)
        return out
    }

    /// The header in `bytes` when it is one this build reads and was written for `expected`
    /// (model, type, layout); which check failed otherwise.
    static func decode(_ bytes: UnsafeRawBufferPointer, expected: PromptCacheIdentity) throws(PromptCacheRejection) -> Header {
        guard bytes.count >= 16 else { throw .truncated }
        func get<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        guard bytes.prefix(8).elementsEqual(magic) else { throw .notACacheFile }
        let version = get(8, UInt32.self)
        guard version == Self.version else { throw .unsupportedVersion(version) }
        let size = Int(get(12, UInt32.self))
        guard size == headerBytes(blockSize: expected.blockSize) else {
            let reason: PromptCacheRejection = size >= 96 && size <= bytes.count ? .foreignLayout : .truncated
            throw reason
        }
        guard bytes.count >= size else { throw .truncated }
        let stored = get(size - 8, UInt64.self)
        guard ContentHash.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<size - 8])) == stored else { throw .checksumMismatch }
        guard get(16, UInt64.self) == expected.modelFingerprint else { throw .foreignModel }
        let name = bytes[24..<40].prefix { $0 != 0 }
        let identity = PromptCacheIdentity(
            modelFingerprint: get(16, UInt64.self), kvType: String(decoding: name, as: UTF8.self),
            blockSize: Int(get(40, UInt32.self)), layers: Int(get(44, UInt32.self)), kvLength: Int(get(48, UInt32.self)),
            blockBytes: Int(get(56, UInt64.self)))
        guard identity == expected else { throw .foreignLayout }
        let tokens = (0..<expected.blockSize).map { get(88 + 4 * $0, Int32.self) }
        return Header(identity: identity, parent: get(64, UInt64.self), chain: get(72, UInt64.self),
                      payloadChecksum: get(80, UInt64.self), tokens: tokens)
    }
}
