import LoomSupport

/// The session's executors, one per (executor type, configuration).
///
/// "The configuration is the lookup key, not the model": two model values with equal
/// configurations share an executor; a different configuration gets its own.
///
/// An executor is built by one task running `Executor.load(configuration:)` (which loads off
/// the cooperative pool); concurrent first uses of a configuration (prewarm racing a request)
/// await that same task, without holding the lock. A failed load is forgotten, so the next use
/// tries again.
final class ExecutorStore: Sendable {
    private struct Key: Hashable, @unchecked Sendable {
        // @unchecked: `configuration` wraps an `Executor.Configuration`, which is Sendable.
        let type: ObjectIdentifier
        let configuration: AnyHashable
    }

    private enum Entry {
        /// Built; the value is a `Model.Executor` of the key's type.
        case ready(any Sendable)
        /// Being built by this task.
        case loading(Task<any Sendable, any Error>)
    }

    private let executors = Locked<[Key: Entry]>([:])

    func executor<Model: LanguageModel>(for model: Model) async throws -> Model.Executor {
        let configuration = model.executorConfiguration
        let key = Key(type: ObjectIdentifier(Model.Executor.self), configuration: AnyHashable(configuration))
        let entry = executors.withLock { table -> Entry in
            if let known = table[key] { return known }
            let load = Task<any Sendable, any Error> { try await Model.Executor.load(configuration: configuration) }
            table[key] = .loading(load)
            return .loading(load)
        }
        switch entry {
        case .ready(let executor):
            return Self.cast(executor, Model.self)
        case .loading(let load):
            do {
                let executor = try await load.value
                executors.withLock { table in
                    if case .loading(load)? = table[key] { table[key] = .ready(executor) }
                }
                return Self.cast(executor, Model.self)
            } catch {
                executors.withLock { table in
                    if case .loading(load)? = table[key] { table[key] = nil }
                }
                throw error
            }
        }
    }

    /// How many executors the store holds (built or being built).
    var count: Int { executors.withLock { $0.count } }

    private static func cast<Model: LanguageModel>(_ executor: any Sendable, _: Model.Type) -> Model.Executor {
        guard let typed = executor as? Model.Executor else {
            preconditionFailure("an executor store entry holds \(type(of: executor)), keyed as \(Model.Executor.self)")
        }
        return typed
    }
}
