import Engine
import LoomJSON

/// `loom detokenize`: token ids on stdin → text.
enum DetokenizeCommand: LoomCommand {
    static let name = "detokenize"
    static let summary = "token ids on stdin → text"
    static let usage = """
        usage: loom detokenize [-m MODEL] [--special] [--json]
          -m, --model FILE   GGUF file, a full model or a vocabulary-only file
                             (default: $LOOM_MODEL, then models/default.gguf)
          --special          render control tokens (<|im_end|>, …) as their text
          --json             stdin is a JSON array of ids (prints a JSON string) or an array of
                             id arrays (prints a JSON array of strings)
        Without --json, stdin holds whitespace-separated ids and the text is printed as is.

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, flags: ["special", "json"], options: ["model"], aliases: ["m": "model"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let tokenizer = try Tokenizer(gguf: GGUFFile(path: args.modelPath))
        let special = args.has("special")
        if args.has("json") {
            let input = try JSONValue(parsing: StandardInput.readAll())
            guard case .array(let items) = input else { throw RuntimeError("--json expects a JSON array") }
            if items.allSatisfy({ if case .array = $0 { return true } else { return false } }), !items.isEmpty {
                var texts: [JSONValue] = []
                for (i, item) in items.enumerated() {
                    texts.append(.string(try tokenizer.decode(ids(item.arrayValue!, at: "element \(i)"), renderSpecial: special)))
                }
                StandardOutput.write(JSONValue.array(texts).serialized() + "\n")
            } else {
                let text = try tokenizer.decode(ids(items, at: "the array"), renderSpecial: special)
                StandardOutput.write(JSONValue.string(text).serialized() + "\n")
            }
            return
        }
        var list: [Int32] = []
        for word in try StandardInput.readText().split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) {
            guard let id = Int32(word) else { throw RuntimeError("'\(word)' is not a token id") }
            list.append(id)
        }
        StandardOutput.write(try tokenizer.decode(list, renderSpecial: special))
    }

    private static func ids(_ values: [JSONValue], at place: String) throws -> [Int32] {
        try values.enumerated().map { (i, v) in
            guard let n = v.intValue, let id = Int32(exactly: n) else {
                throw RuntimeError("--json: \(place), item \(i) is not a token id")
            }
            return id
        }
    }
}
