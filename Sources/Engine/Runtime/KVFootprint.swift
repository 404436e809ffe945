/// How many bytes of keys and values a model keeps per position, by kind of layer.
///
/// Global layers keep every position of a sequence; local (sliding-window) layers are read only
/// over the last `window` positions, and a scheduler keeps theirs for that window (plus the
/// longest run it may roll back), so a long sequence costs `globalBytesPerToken` per position
/// and `localBytesPerToken` per window position.
public struct KVFootprint: Sendable, Equatable {
    /// Element type of the keys and values.
    public let type: KVCacheType
    /// Layers that attend to every earlier position.
    public let globalLayers: Int
    /// Layers that attend to the last `window` positions only.
    public let localLayers: Int
    /// Positions a local layer reads (0 when there are no local layers).
    public let window: Int
    /// Bytes of one position's key and value in one layer.
    public let bytesPerLayerToken: Int

    /// The footprint of `config` with elements of `type`.
    public init(_ config: ModelDescription, type: KVCacheType) {
        self.type = type
        localLayers = config.localLayerCount
        globalLayers = config.blockCount - localLayers
        window = localLayers > 0 ? config.slidingWindow : 0
        bytesPerLayerToken = 2 * type.rowBytes(elements: config.kvLength)
    }

    /// Bytes every position costs in the global layers together.
    public var globalBytesPerToken: Int { globalLayers * bytesPerLayerToken }
    /// Bytes a position inside the window costs in the local layers together.
    public var localBytesPerToken: Int { localLayers * bytesPerLayerToken }

    /// Bytes a sequence of `positions` needs when local layers keep only their window (plus
    /// `margin` positions behind it), against every layer keeping every position.
    public func bytes(positions: Int, margin: Int = 0) -> (windowed: Int, full: Int) {
        let local = window > 0 ? min(positions, window + margin) : positions
        return (globalBytesPerToken * positions + localBytesPerToken * local,
                (globalBytesPerToken + localBytesPerToken) * positions)
    }
}
