import Engine
import Provider

/// Maps a request's `GenerationOptions` over the model's `SamplingDefaults` onto the engine's
/// `SamplingParameters`. Every option is honoured; invalid values are refused, not clamped.
enum SamplingResolution {
    /// The parameters for `options`. A random seed is drawn when neither the request nor the
    /// defaults fix one.
    static func parameters(_ options: GenerationOptions, defaults: SamplingDefaults) throws -> SamplingParameters {
        let temperature = options.temperature ?? defaults.temperature
        guard temperature.isFinite, temperature >= 0 else {
            throw LocalLanguageModelError.invalidGenerationOptions("temperature \(temperature) must be a non-negative number")
        }
        var p = SamplingParameters(temperature: Float(temperature))
        p.repeatPenalty = Float(defaults.repeatPenalty)
        var seed = defaults.seed
        switch options.samplingMode?.kind {
        case .greedy?:
            p.temperature = 0
        case .randomTopK(let k, let s)?:
            guard k > 0 else { throw LocalLanguageModelError.invalidGenerationOptions("top-k \(k) must be positive") }
            p.topK = k
            seed = s ?? seed
        case .randomProbabilityThreshold(let top, let s)?:
            guard top > 0, top <= 1 else {
                throw LocalLanguageModelError.invalidGenerationOptions("probability threshold \(top) must be in (0, 1]")
            }
            p.topP = Float(top)
            seed = s ?? seed
        case nil:
            p.topK = defaults.topK
            p.topP = Float(defaults.topP)
            p.minP = Float(defaults.minP)
        }
        p.seed = seed ?? UInt64.random(in: 0...UInt64.max)
        return p
    }
}
