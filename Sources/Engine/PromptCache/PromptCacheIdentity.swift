/// What a persisted KV block must have been computed with to be used: the same model file
/// (by content), KV element type and block geometry. Every field is in each file's header, so a
/// file from another model, KV type or layout is recognised and ignored instead of loaded.
public struct PromptCacheIdentity: Sendable, Equatable {
    /// `GGUFFile.contentFingerprint` of the model.
    public var modelFingerprint: UInt64
    /// `KVCacheType.rawValue` of the keys and values (at most 16 bytes of UTF-8).
    public var kvType: String
    /// Positions per block.
    public var blockSize: Int
    /// Layers of keys and values.
    public var layers: Int
    /// Elements per position per layer.
    public var kvLength: Int
    /// Bytes of keys and values one block holds across every layer: with the type's name, what
    /// makes a new KV type's files distinct without a format change.
    public var blockBytes: Int

    /// An identity from its parts.
    public init(modelFingerprint: UInt64, kvType: String, blockSize: Int, layers: Int, kvLength: Int, blockBytes: Int) {
        self.modelFingerprint = modelFingerprint
        self.kvType = kvType
        self.blockSize = blockSize
        self.layers = layers
        self.kvLength = kvLength
        self.blockBytes = blockBytes
    }

    /// The file name of the block whose prefix (every token through its end) hashes to `chain`:
    /// the identity is mixed in, so blocks of different models or KV types sharing a directory
    /// have different names, and a name collision is caught by the header.
    func fileName(chain: UInt64) -> String {
        var key = chain ^ modelFingerprint
        for part in [UInt64(blockBytes), UInt64(blockSize)] + kvType.utf8.map(UInt64.init) {
            key = (key ^ part) &* 0x0000_0100_0000_01b3  // FNV-1a prime: wrapping by definition
            key ^= key >> 29
        }
        let hex = String(key, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + PromptCacheFile.fileExtension
    }
}
