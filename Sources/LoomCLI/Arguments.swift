/// A small command-line parser shared by every `loom` subcommand.
///
/// Each subcommand declares the flags it takes (booleans) and the options that take a value;
/// anything else is a usage error (exit 2). Short aliases (`-m`) map to long names (`--model`).
struct Arguments {
    private(set) var flags: Set<String> = []
    private(set) var options: [String: String] = [:]
    private(set) var positionals: [String] = []

    /// Parses `args` (without the program and subcommand names).
    /// - Parameters:
    ///   - flags: long names of boolean flags, without dashes (`json`).
    ///   - options: long names of options taking a value (`model`).
    ///   - aliases: short or alternate spellings mapped to long names (`"m": "model"`).
    init(_ args: [String], flags known: Set<String>, options takingValue: Set<String>,
         aliases: [String: String] = [:]) throws(UsageError) {
        var i = 0
        while i < args.count {
            let arg = args[i]
            i += 1
            if arg == "--" {
                positionals.append(contentsOf: args[i...])
                break
            }
            guard arg.hasPrefix("-"), arg.count > 1, Double(arg) == nil else {
                positionals.append(arg)
                continue
            }
            var name = String(arg.drop(while: { $0 == "-" }))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            name = aliases[name] ?? name
            if known.contains(name) {
                if inlineValue != nil { throw UsageError("flag --\(name) takes no value") }
                flags.insert(name)
            } else if takingValue.contains(name) {
                if let inlineValue {
                    options[name] = inlineValue
                } else {
                    guard i < args.count else { throw UsageError("option --\(name) needs a value") }
                    options[name] = args[i]
                    i += 1
                }
            } else {
                throw UsageError("unknown option \(arg)")
            }
        }
    }

    /// True when the boolean flag was given.
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The raw value of an option, if given.
    func value(_ option: String) -> String? { options[option] }

    /// An integer option, or `defaultValue` when absent.
    func int(_ option: String, default defaultValue: Int) throws(UsageError) -> Int {
        guard let raw = options[option] else { return defaultValue }
        guard let v = Int(raw) else { throw UsageError("--\(option) expects an integer, got '\(raw)'") }
        return v
    }

    /// An optional integer option.
    func int(_ option: String) throws(UsageError) -> Int? {
        guard let raw = options[option] else { return nil }
        guard let v = Int(raw) else { throw UsageError("--\(option) expects an integer, got '\(raw)'") }
        return v
    }

    /// A comma-separated list of integers in `range` ("1,2,4,8"), or nil when absent.
    func ints(_ option: String, in range: ClosedRange<Int>) throws(UsageError) -> [Int]? {
        guard let raw = options[option] else { return nil }
        let values = raw.split(separator: ",").map { Int($0.filter { $0 != " " }) }
        guard !values.isEmpty, values.allSatisfy({ $0.map(range.contains) ?? false }) else {
            throw UsageError("--\(option) expects a comma-separated list of integers from \(range.lowerBound) to \(range.upperBound), got '\(raw)'")
        }
        return values.compactMap { $0 }
    }

    /// A floating-point option, or nil when absent.
    func double(_ option: String) throws(UsageError) -> Double? {
        guard let raw = options[option] else { return nil }
        guard let v = Double(raw) else { throw UsageError("--\(option) expects a number, got '\(raw)'") }
        return v
    }

    /// The model path: `-m/--model`, else `$LOOM_MODEL`, else `models/default.gguf`.
    var modelPath: String {
        if let m = options["model"] { return m }
        if let env = ProcessEnvironment.value("LOOM_MODEL"), !env.isEmpty { return env }
        return "models/default.gguf"
    }
}

/// A mistake in how `loom` was called: printed with the subcommand's usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// A failure while doing the work: printed as one line on stderr, exit status 1.
struct RuntimeError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
