#if canImport(Glibc)
import Glibc
#endif
import Engine
import Grammar
import LoomJSON
import LoomSupport

/// `loom grammar`: compile a schema/GBNF/regex, or replay conformance suites through real vocabularies.
enum GrammarCommand: LoomCommand {
    static let name = "grammar"
    static let summary = "compile JSON Schema/GBNF/regex grammars; replay schema suites"
    static let usage = """
        usage: loom grammar compile (--schema FILE | --gbnf FILE | --regex R) [--lenient]
               loom grammar replay -m MODEL (--suite FILE.jsonl | --jsts DIR) [--lenient] [--verbose] [--json] [--limit N]
                                   [--dump-masks DIR]
          compile   print the compiled grammar (GBNF-like) or the typed error (exit 1)
          replay    tokenize every test instance with MODEL's tokenizer and replay it token by token:
                    each token of a valid instance must be inside the mask computed just before it and
                    end-of-generation allowed at the end; an invalid one must leave the mask somewhere
          --lenient ignore constraints that cannot be enforced exactly (with warnings)
          --dump-masks DIR  write vocab.json, masks.bin and steps.jsonl (every mask of every valid
                    instance) for Benchmarks/grammar/llguidance-compare
          --json    print {"vocab", "vocab_size", "schemas", "with_tests", "compiled", "passed", "pass_rate",
                    "instances", "invalid_accepted", "valid_rejected", "mask_us", "compile_ms",
                    "forced_share", "mask_density", "per_schema" (with --verbose)}

        """

    static func run(_ arguments: [String]) async throws {
        guard let sub = arguments.first else { throw UsageError("expected 'compile' or 'replay'") }
        let rest = Array(arguments.dropFirst())
        // Schema compilation recurses with schema depth; the cooperative pool's small thread stacks
        // are not enough for deep real-world schemas, so the work runs on a thread with 256 MiB.
        try onLargeStack {
            switch sub {
            case "compile": try compile(rest)
            case "replay": try GrammarReplay.run(rest)
            default: throw UsageError("unknown grammar subcommand '\(sub)'")
            }
        }
    }

    /// Runs `body` on a new thread with a large stack and waits for it (on this thread when no
    /// thread can be created).
    static func onLargeStack(_ body: () throws -> Void) throws {
        let outcome: Result<Void, any Error>
        do {
            outcome = try DedicatedThread.runAndWait(stackSize: 256 << 20) { Result { try body() } }
        } catch {
            outcome = Result { try body() }  // `error` is a DedicatedThreadError: the body never ran
        }
        try outcome.get()
    }

    static func compile(_ arguments: [String]) throws {
        let args = try Arguments(arguments, flags: ["lenient"], options: ["schema", "gbnf", "regex"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let given = ["schema", "gbnf", "regex"].filter { args.value($0) != nil }
        guard given.count == 1 else { throw UsageError("give exactly one of --schema, --gbnf, --regex") }
        let grammar: Grammar
        do {
            if let path = args.value("schema") {
                var options = JSONSchemaOptions()
                options.lenient = args.has("lenient")
                grammar = try Grammar(jsonSchema: try FileInput.text(path), options: options)
            } else if let path = args.value("gbnf") {
                grammar = try Grammar(gbnf: try FileInput.text(path))
            } else {
                grammar = try Grammar(regex: args.value("regex")!)
            }
        } catch let e as GrammarError {
            throw RuntimeError(e.description)
        }
        for w in grammar.warnings { StandardError.line("warning: \(w)") }
        StandardOutput.write(grammar.description)
    }
}

/// CPU time of the calling thread in nanoseconds: on a shared machine wall time includes other
/// processes' time slices (a preempted mask would count ~4 ms), CPU time only the work done.
func threadCPUNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Monotonic time in nanoseconds.
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
