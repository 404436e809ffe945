/// Where a scheduler keeps the prompt cache that outlives its process, and how large it may grow.
public struct PromptCacheOptions: Sendable, Hashable, Codable {
    /// The directory of cache files (created when missing). Several processes may share it.
    public var directory: String
    /// Bytes the directory's cache files may take before the least recently used are removed.
    public var budgetBytes: Int

    /// The default budget: 1 GiB.
    public static let defaultBudgetBytes = 1 << 30

    /// A cache in `directory` of at most `budgetBytes` bytes.
    public init(directory: String, budgetBytes: Int = PromptCacheOptions.defaultBudgetBytes) {
        self.directory = directory
        self.budgetBytes = budgetBytes
    }
}
