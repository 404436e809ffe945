import Engine
import Grammar
import LoomJSON

/// The replay benchmark behind `loom grammar replay`: every schema of a suite compiled over a
/// model's vocabulary, every test instance tokenized and replayed token by token through the
/// masks (`GrammarReplay.Replayer`), and the tallies reported as one JSON document.
enum GrammarReplay {
    struct Case { let valid: Bool; let text: String }
    struct Item { let id: String; let schema: JSONValue; let cases: [Case] }

    static func run(_ arguments: [String]) throws {
        let args = try Arguments(arguments, flags: ["lenient", "verbose", "json"], options: ["model", "suite", "jsts", "limit", "dump-masks"],
                                 aliases: ["m": "model"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        guard (args.value("suite") == nil) != (args.value("jsts") == nil) else { throw UsageError("give exactly one of --suite, --jsts") }
        let modelPath = args.modelPath
        let tokenizer = try Tokenizer(gguf: GGUFFile(path: modelPath))
        let vocab = GrammarVocabulary(tokenizer: tokenizer)
        let (items, options) = try loadItems(args)

        let progress = ProcessEnvironment.value("LOOM_REPLAY_PROGRESS") != nil
        var bar = Progress(json: args.has("json") || progress)
        // `--dump-masks DIR`: every mask computed for a valid instance, for comparisons with other
        // engines (Benchmarks/grammar/llguidance-compare): vocab.json, masks.bin (raw UInt64 words,
        // one mask after another), steps.jsonl (one line per valid instance).
        let dump = try args.value("dump-masks").map { try MaskDump(directory: $0, vocabulary: vocab) }
        var replayer = Replayer(vocabulary: vocab, tokenizer: tokenizer, options: options, dump: dump)
        for (index, item) in items.enumerated() {
            bar.step("grammar replay: schema", index + 1, of: items.count)
            if progress { StandardError.line("schema \(item.id)") }
            replayer.replay(item, index: index)
        }
        bar.clear()

        let name = modelPath.split(separator: "/").last.map(String.init) ?? modelPath
        let out = replayer.tally.report(vocabularyName: name, vocabularySize: vocab.size, schemas: items.count,
                                        verbose: args.has("verbose"))
        StandardOutput.write(out.serialized(args.has("json") ? .compact : .pretty) + "\n")
    }

    /// The suite's items (cut to `--limit`) and the schema options: recognition mode, lenient on
    /// request, and the JSON Schema Test Suite's remote documents for `--jsts`.
    static func loadItems(_ args: Arguments) throws -> (items: [Item], options: JSONSchemaOptions) {
        var options = JSONSchemaOptions.recognition
        options.lenient = args.has("lenient")
        var items: [Item]
        if let suite = args.value("suite") {
            items = try loadSuite(suite)
        } else {
            let dir = args.value("jsts")!
            items = try loadJSTS(dir)
            options.remoteDocuments = try loadRemotes(dir)
        }
        if let limit = try args.int("limit") { items = Array(items.prefix(limit)) }
        return (items, options)
    }
}
