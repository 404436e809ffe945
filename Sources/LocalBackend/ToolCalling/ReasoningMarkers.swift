import Foundation
import LoomJSON
import Provider

/// The pair of markers a reasoning model writes around its thoughts (`<think>` … `</think>`).
public struct ReasoningMarkers: Sendable, Hashable {
    /// The text that opens a reasoning block.
    public var open: String
    /// The text that closes it.
    public var close: String

    /// Builds a marker pair.
    public init(open: String, close: String) {
        self.open = open
        self.close = close
    }

    /// `<think>` … `</think>` (Qwen3, QwQ, DeepSeek R1 and most open reasoning models).
    public static let think = ReasoningMarkers(open: "<think>", close: "</think>")

    /// Pairs seen in released models, most common first.
    public static let known: [ReasoningMarkers] = [
        .think,
        ReasoningMarkers(open: "<thinking>", close: "</thinking>"),
        ReasoningMarkers(open: "[THINK]", close: "[/THINK]"),
        ReasoningMarkers(open: "<|START_THINKING|>", close: "<|END_THINKING|>"),
        ReasoningMarkers(open: "<seed:think>", close: "</seed:think>"),
    ]

    /// The model's reasoning markers, or nil when it has none (no `.reasoning` capability).
    ///
    /// A pair counts when both markers are tokens of their own in the vocabulary (special or
    /// user-defined): a model trained to reason has them as single tokens, while text that merely
    /// mentions `<think>` is spelled with ordinary pieces.
    /// - Parameter specialTokens: `ToolCallingVocabulary.specialTokenTexts(of:)`.
    public static func detect(specialTokens: Set<String>) -> ReasoningMarkers? {
        known.first { specialTokens.contains($0.open) && specialTokens.contains($0.close) }
    }

    /// Whether a rendered prompt leaves the model inside a reasoning block (templates such as
    /// DeepSeek R1's end the generation prompt with `<think>\n`), so output starts as reasoning.
    public func promptOpensReasoning(_ prompt: String) -> Bool {
        guard let openAt = prompt.range(of: open, options: .backwards) else { return false }
        let rest = prompt[openAt.upperBound...]
        return !rest.contains(close) && rest.allSatisfy(\.isWhitespace)
    }
}

/// How a request's `reasoningLevel` is applied to a model: template variables and whether the
/// model is expected to think.
public struct ReasoningConfiguration: Sendable, Equatable {
    /// Variables to pass to the chat template (`extra:`), e.g. `enable_thinking: false`.
    public var templateVariables: JSONObject
    /// Whether a reasoning block may be generated (false: the grammar, when used, admits none).
    public var thinkingEnabled: Bool

    /// Builds a configuration.
    public init(templateVariables: JSONObject = JSONObject(), thinkingEnabled: Bool) {
        self.templateVariables = templateVariables
        self.thinkingEnabled = thinkingEnabled
    }

    /// The custom level names that switch thinking off (compared case-insensitively).
    public static let disablingLevels: Set<String> = ["no_think", "none", "off"]

    /// Maps a reasoning level for a model with `markers` and the template `templateSource`.
    ///
    /// - nil: the template's default, thinking enabled when the model has markers.
    /// - `.custom("no_think")` (or `"none"`, `"off"`): `enable_thinking: false` where the template
    ///   reads that variable (Qwen3), and thinking disabled.
    /// - `.light`/`.moderate`/`.deep`: `enable_thinking: true`, and `reasoning_effort`
    ///   `low`/`medium`/`high` where the template reads it (gpt-oss).
    /// - other `.custom(s)`: thinking on, `reasoning_effort: s` where the template reads it.
    public static func resolve(level: ContextOptions.ReasoningLevel?, templateSource: String?,
                               markers: ReasoningMarkers?) -> ReasoningConfiguration {
        let source = templateSource ?? ""
        let hasSwitch = source.contains("enable_thinking")
        let hasEffort = source.contains("reasoning_effort")
        var variables = JSONObject()
        guard let level else { return ReasoningConfiguration(thinkingEnabled: markers != nil) }
        let effort: String?
        switch level {
        case .custom(let name) where disablingLevels.contains(name.lowercased()):
            if hasSwitch { variables["enable_thinking"] = false }
            if hasEffort { variables["reasoning_effort"] = "low" }
            return ReasoningConfiguration(templateVariables: variables, thinkingEnabled: false)
        case .light: effort = "low"
        case .moderate: effort = "medium"
        case .deep: effort = "high"
        case .custom(let name): effort = name
        }
        if hasSwitch { variables["enable_thinking"] = true }
        if hasEffort, let effort { variables["reasoning_effort"] = .string(effort) }
        return ReasoningConfiguration(templateVariables: variables, thinkingEnabled: markers != nil)
    }
}
