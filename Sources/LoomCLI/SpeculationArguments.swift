/// `--no-speculate` and `--speculate-max K`, shared by the commands that generate through
/// `LocalLanguageModel` (`run`, `chat`, `serve`).
enum SpeculationArguments {
    /// The flag and option names, for `Arguments`.
    static let flag = "no-speculate", option = "speculate-max"

    /// The `LocalLanguageModel.speculationLimit` the arguments ask for: 0 with `--no-speculate`,
    /// else `--speculate-max` (default 8).
    static func limit(_ args: Arguments) throws -> Int {
        if args.has(flag) {
            if args.value(option) != nil { throw UsageError("--no-speculate excludes --speculate-max") }
            return 0
        }
        let k = try args.int(option, default: 8)
        guard k >= 1 else { throw UsageError("--speculate-max must be at least 1 (--no-speculate turns speculation off)") }
        return k
    }
}
