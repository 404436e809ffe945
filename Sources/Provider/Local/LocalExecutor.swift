import Engine
import Foundation
import Grammar
import LoomJSON

extension LocalLanguageModel {
    /// Runs a `LocalLanguageModel`: owns the shared weights, the tokenizer, the chat template and
    /// a pool of engines (one generation per engine at a time).
    public final class Executor: LanguageModelExecutor {
        public typealias Model = LocalLanguageModel

        /// The configuration this executor was built from.
        public let configuration: Configuration

        /// Loads (or shares) the model's weights and validates the file; throws
        /// `LocalLanguageModelError.modelLoadFailed` for an unreadable or unsupported file.
        public init(configuration: Configuration) throws {
            self.configuration = configuration
            throw LocalLanguageModelError.internalFailure("not implemented yet")
        }

        /// Generates a response for `request`.
        public func respond(to request: LanguageModelExecutorGenerationRequest, model: LocalLanguageModel,
                            streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
            throw LocalLanguageModelError.internalFailure("not implemented yet")
        }
    }
}
