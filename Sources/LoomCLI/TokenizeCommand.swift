import Engine
import LoomJSON

/// `loom tokenize`: text on stdin → token ids, exactly as the engine tokenizes prompts.
enum TokenizeCommand: LoomCommand {
    static let name = "tokenize"
    static let summary = "text on stdin → token ids"
    static let usage = """
        usage: loom tokenize [-m MODEL] [--bos] [--special] [--json]
          -m, --model FILE   GGUF file, a full model or a vocabulary-only file
                             (default: $LOOM_MODEL, then models/default.gguf)
          --bos              prepend the BOS token
          --special          parse control-token texts (<|im_start|>, <s>, …) as those tokens
          --json             stdin is a JSON array of strings; print a JSON array of id arrays
        Without --json, stdin is one text (one trailing newline is dropped) and the ids are
        printed space-separated on one line.

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, flags: ["bos", "special", "json"], options: ["model"], aliases: ["m": "model"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let tokenizer = try Tokenizer(gguf: GGUFFile(path: args.modelPath))
        let addBOS = args.has("bos"), special = args.has("special")
        if args.has("json") {
            let input = try JSONValue(parsing: StandardInput.readAll())
            guard case .array(let items) = input else { throw RuntimeError("--json expects a JSON array of strings") }
            var results: [JSONValue] = []
            results.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                guard case .string(let text) = item else { throw RuntimeError("--json: element \(i) is not a string") }
                let ids = tokenizer.encode(text, addBOS: addBOS, parseSpecial: special)
                results.append(.array(ids.map { .number(JSONNumber(Int($0))) }))
            }
            StandardOutput.write(JSONValue.array(results).serialized() + "\n")
            return
        }
        // Drop exactly one "\n" byte ("\r\n" is one Character, so this cannot be done on the String).
        var bytes = try StandardInput.readAll()
        if bytes.last == 0x0A { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw RuntimeError("standard input is not valid UTF-8")
        }
        let ids = tokenizer.encode(text, addBOS: addBOS, parseSpecial: special)
        StandardOutput.write(ids.map(String.init).joined(separator: " ") + "\n")
    }
}
