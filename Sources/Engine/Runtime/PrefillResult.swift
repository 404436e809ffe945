/// What evaluating a prompt did: how much of it came from cached KV blocks and how much was
/// computed.
public struct PrefillResult: Sendable, Equatable {
    /// Leading prompt tokens not evaluated now: their keys and values were reused from blocks an
    /// earlier sequence (or an earlier turn) left in the pool.
    public var cachedTokenCount: Int
    /// Prompt tokens evaluated now.
    public var evaluatedTokenCount: Int
    /// The part of `cachedTokenCount` reused from another sequence's blocks.
    public var restoredTokenCount: Int

    /// A result (for callers that report or mock prompt evaluations).
    public init(cachedTokenCount: Int, evaluatedTokenCount: Int, restoredTokenCount: Int = 0) {
        self.cachedTokenCount = cachedTokenCount
        self.evaluatedTokenCount = evaluatedTokenCount
        self.restoredTokenCount = restoredTokenCount
    }
}
