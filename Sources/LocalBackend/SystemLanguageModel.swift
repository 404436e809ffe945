import Foundation
import Provider

/// Linux's stand-in for Apple's on-device model: the machine's default local model, so code
/// written for Apple's framework — `LanguageModelSession()` with no model, availability checks,
/// `SystemLanguageModel.default` — compiles and runs unchanged.
///
/// The default model is the GGUF file named by the `LOOM_MODEL` environment variable, else
/// `models/default.gguf` relative to the current directory (where `models/fetch` puts it), run
/// as a `LocalLanguageModel` with its default settings. When neither names a readable file,
/// `availability` says so and requests throw `SystemLanguageModel.Error.assetsUnavailable`.
///
/// ```swift
/// switch SystemLanguageModel.default.availability {
/// case .available: let answer = try await LanguageModelSession().respond(to: "Hello")
/// case .unavailable(let reason): print("no model: \(reason)")
/// }
/// ```
public struct SystemLanguageModel: LanguageModel {
    /// The environment variable naming the default model's GGUF file.
    public static let modelPathEnvironmentVariable = "LOOM_MODEL"
    /// Where the default model is looked for when the environment names none (relative paths
    /// resolve against the current directory).
    public static let defaultModelPath = "models/default.gguf"

    /// Whether the model can be used now. Frozen, as Apple's is: switch exhaustively.
    @frozen public enum Availability: Equatable, Sendable {
        /// The model is ready.
        case available
        /// The model cannot be used, for `reason`.
        case unavailable(UnavailableReason)

        /// Why the model is unavailable (Apple's reasons, read for a local file).
        public enum UnavailableReason: Equatable, Sendable {
            /// This machine cannot run the configured model: the file is not a GGUF model Loom
            /// can run (unreadable header, unsupported architecture).
            case deviceNotEligible
            /// Apple Intelligence is turned off. Never reported on Linux, where there is no such
            /// setting; present so Apple's exhaustive switches compile.
            case appleIntelligenceNotEnabled
            /// No model file is where the default model is looked for: set `LOOM_MODEL` or run
            /// `models/fetch`.
            case modelNotReady
        }
    }

    /// What the model is used for. Apple tunes its model per use case; a local model treats
    /// every use case alike.
    public struct UseCase: Sendable, Equatable {
        let name: String
        /// General prompting.
        public static let general = UseCase(name: "general")
        /// Tagging and extracting from content.
        public static let contentTagging = UseCase(name: "contentTagging")
    }

    /// Apple's content guardrails. Loom runs no safety classifier, so both values behave alike:
    /// nothing throws `guardrailViolation`.
    public struct Guardrails: Sendable {
        let name: String
        /// Apple's default guardrails.
        public static let `default` = Guardrails(name: "default")
        /// Apple's permissive guardrails for transforming text.
        public static let permissiveContentTransformations = Guardrails(name: "permissiveContentTransformations")
    }

    /// The on-device model is unusable now.
    public enum Error: Swift.Error, LocalizedError, Sendable {
        /// No usable model file is configured (see `availability` for which reason).
        case assetsUnavailable(AssetsUnavailable)

        /// Payload of `.assetsUnavailable`.
        public struct AssetsUnavailable: Sendable {
            /// Developer-facing detail: where the model was looked for.
            public var debugDescription: String
            /// Extra context.
            public var metadata: [String: any Sendable]

            /// Builds the payload.
            public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
                self.debugDescription = debugDescription
                self.metadata = metadata
            }
        }

        /// What went wrong.
        public var errorDescription: String? {
            switch self {
            case .assetsUnavailable(let payload): return "The model is unavailable: \(payload.debugDescription)"
            }
        }
    }

    /// The machine's default model, resolved from the environment when read.
    public static var `default`: SystemLanguageModel { SystemLanguageModel() }

    /// The local model requests run on; nil when no model file is configured.
    public let localModel: LocalLanguageModel?
    /// The use case the model was made for.
    public let useCase: UseCase
    /// The guardrails the model was made with (without effect on Linux).
    public let guardrails: Guardrails

    /// The default model (`LOOM_MODEL`, else `models/default.gguf`) for `useCase`.
    public init(useCase: UseCase = .general, guardrails: Guardrails = .default) {
        self.init(localModel: LocalLanguageModel(path: Self.configuredModelPath), useCase: useCase, guardrails: guardrails)
    }

    /// A stand-in for a specific local model; nil stands for a machine with none configured.
    /// A Loom addition, for apps that choose their model but keep Apple's spellings.
    public init(localModel: LocalLanguageModel?, useCase: UseCase = .general, guardrails: Guardrails = .default) {
        self.localModel = localModel
        self.useCase = useCase
        self.guardrails = guardrails
    }

    /// The path the default model is read from: `$LOOM_MODEL` when set and not empty, else
    /// `defaultModelPath`.
    public static var configuredModelPath: String {
        if let path = ProcessInfo.processInfo.environment[modelPathEnvironmentVariable], !path.isEmpty { return path }
        return defaultModelPath
    }

    /// Whether the model can be used now: its file exists and holds a model Loom can describe.
    /// Cheap (the file's header is read once and cached); not a promise that loading succeeds.
    public var availability: Availability {
        guard let localModel else { return .unavailable(.modelNotReady) }
        guard FileManager.default.fileExists(atPath: localModel.url.path) else { return .unavailable(.modelNotReady) }
        guard LocalModelInspection.facts(path: localModel.url.path) != nil else { return .unavailable(.deviceNotEligible) }
        return .available
    }

    /// `availability == .available`.
    public var isAvailable: Bool { availability == .available }

    /// Tokens of context one session's requests share (prompt and response).
    public var contextSize: Int { localModel?.contextSize ?? LocalLanguageModel.defaultContextSize }

    /// Whether the model can be prompted in `locale`'s language. Local models declare no
    /// languages, so this is always true; the model's quality in a language is for the app to judge.
    public func supportsLocale(_ locale: Locale = Locale.current) -> Bool { true }

    /// What the local model supports; nothing when none is configured.
    public var capabilities: LanguageModelCapabilities {
        localModel?.capabilities ?? LanguageModelCapabilities([])
    }

    /// The local model's configuration, or the path that was looked for.
    public var executorConfiguration: Executor.Configuration {
        Executor.Configuration(local: localModel.map { $0.executorConfiguration },
                               searchedPath: localModel?.url.path ?? Self.configuredModelPath)
    }
}
