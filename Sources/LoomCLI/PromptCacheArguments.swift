import Engine

/// `--prompt-cache DIR` and `--prompt-cache-budget MIB`, shared by the commands that generate
/// through `LocalLanguageModel` (`run`, `chat`, `serve`).
enum PromptCacheArguments {
    /// The option names, for `Arguments`.
    static let names: Set<String> = ["prompt-cache", "prompt-cache-budget"]

    /// The options' lines of a command's usage.
    static let usage = """
          --prompt-cache DIR keep evaluated prompt prefixes (system prompts, shared contexts) in
                             DIR across runs: written in the background, loaded instead of
                             evaluated; several processes may share DIR
          --prompt-cache-budget MIB
                             bytes DIR may hold before least recently used blocks go (default 1024)
        """

    /// The `LocalLanguageModel.promptCache` the arguments ask for; nil without `--prompt-cache`.
    static func options(_ args: Arguments) throws(UsageError) -> PromptCacheOptions? {
        let mib = try args.int("prompt-cache-budget")
        guard let directory = args.value("prompt-cache") else {
            if mib != nil { throw UsageError("--prompt-cache-budget needs --prompt-cache DIR") }
            return nil
        }
        guard !directory.isEmpty else { throw UsageError("--prompt-cache must name a directory") }
        var options = PromptCacheOptions(directory: directory)
        if let mib {
            guard mib >= 1 else { throw UsageError("--prompt-cache-budget must be at least 1 MiB") }
            options.budgetBytes = mib << 20
        }
        return options
    }
}
