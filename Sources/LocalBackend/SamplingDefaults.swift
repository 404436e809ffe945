import Provider

/// Sampling a `LocalLanguageModel` uses for fields a request's `GenerationOptions` leaves nil.
public struct SamplingDefaults: Sendable, Hashable, Codable {
    /// Temperature when the request gives none (0 = greedy).
    public var temperature: Double
    /// Top-k when the request gives no sampling mode (0 = off).
    public var topK: Int
    /// Top-p when the request gives no sampling mode (1 = off).
    public var topP: Double
    /// Min-p filter (0 = off); not expressible in `GenerationOptions`.
    public var minP: Double
    /// Repetition penalty (1 = off); not expressible in `GenerationOptions`.
    public var repeatPenalty: Double
    /// Seed when the request gives none; nil draws a fresh seed per request.
    public var seed: UInt64?
    /// Response-token cap when the request gives none (nil = until the context is full).
    public var maximumResponseTokens: Int?

    /// Loom's defaults: temperature 0.8, top-k 40, top-p 0.95, min-p 0.05 (llama.cpp's).
    public init(temperature: Double = 0.8, topK: Int = 40, topP: Double = 0.95, minP: Double = 0.05,
                repeatPenalty: Double = 1, seed: UInt64? = nil, maximumResponseTokens: Int? = nil) {
        self.temperature = temperature
        self.topK = topK
        self.topP = topP
        self.minP = minP
        self.repeatPenalty = repeatPenalty
        self.seed = seed
        self.maximumResponseTokens = maximumResponseTokens
    }
}
