import Foundation
import Provider

extension SystemLanguageModel {
    /// Runs the default model through a `LocalLanguageModel.Executor`, or throws
    /// `SystemLanguageModel.Error.assetsUnavailable` when there is no model to run.
    public final class Executor: LanguageModelExecutor {
        public typealias Model = SystemLanguageModel

        /// The local model's configuration (nil when none is configured) and where it was looked for.
        public struct Configuration: Hashable, Sendable {
            /// The configuration of the local model; nil when no model is configured.
            public var local: LocalLanguageModel.Executor.Configuration?
            /// The model path that was looked for.
            public var searchedPath: String
        }

        let local: LocalLanguageModel.Executor

        /// Loads the local model, blocking.
        /// - Throws: `SystemLanguageModel.Error.assetsUnavailable` when no model file is
        ///   readable; the local executor's errors otherwise.
        public init(configuration: Configuration) throws {
            local = try LocalLanguageModel.Executor(configuration: Self.localConfiguration(configuration))
        }

        /// Loads (or shares) the local model without blocking the calling task.
        public static func load(configuration: Configuration) async throws -> Executor {
            Executor(local: try await LocalLanguageModel.Executor.load(configuration: localConfiguration(configuration)))
        }

        private init(local: LocalLanguageModel.Executor) {
            self.local = local
        }

        private static func localConfiguration(_ configuration: Configuration) throws -> LocalLanguageModel.Executor.Configuration {
            guard let local = configuration.local, FileManager.default.isReadableFile(atPath: local.path) else {
                throw SystemLanguageModel.Error.assetsUnavailable(.init(
                    debugDescription: "no readable model file at \(configuration.searchedPath); set \(SystemLanguageModel.modelPathEnvironmentVariable) to a GGUF file or run models/fetch",
                    metadata: ["path": configuration.searchedPath]))
            }
            return local
        }

        /// Generates as the local model does.
        public func respond(to request: LanguageModelExecutorGenerationRequest, model: SystemLanguageModel,
                            streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
            try await local.respond(to: request, model: try localModel(model), streamingInto: channel)
        }

        /// Prewarms the local model.
        public func prewarm(model: SystemLanguageModel, transcript: Transcript) {
            guard let localModel = model.localModel else { return }
            local.prewarm(model: localModel, transcript: transcript)
        }

        /// Counts with the local model's tokenizer and chat template.
        public func tokenCount(for request: LanguageModelExecutorTokenCountRequest, model: SystemLanguageModel) async throws -> Int {
            try await local.tokenCount(for: request, model: try localModel(model))
        }

        private func localModel(_ model: SystemLanguageModel) throws -> LocalLanguageModel {
            guard let localModel = model.localModel else {
                throw SystemLanguageModel.Error.assetsUnavailable(.init(debugDescription: "no local model is configured"))
            }
            return localModel
        }
    }
}
