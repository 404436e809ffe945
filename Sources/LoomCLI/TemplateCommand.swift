import ChatTemplate
import Engine
import LoomJSON

/// `loom template`: renders a chat template exactly as `apply_chat_template` would.
enum TemplateCommand: LoomCommand {
    static let name = "template"
    static let summary = "render a chat template for a conversation or a context"
    static let usage = """
        usage: loom template (-m MODEL | --template FILE.jinja)
                             (--messages FILE.json [--tools FILE.json] [--documents FILE.json]
                              [--add-generation-prompt | --continue-final-message] [--extra FILE.json]
                              | --context FILE.json) [--now ISO8601] [--template-name NAME]
          -m, --model FILE         take the template and BOS/EOS tokens from a GGUF file
          --template FILE          a Jinja template file (BOS/EOS default to "")
          --template-name NAME     use tokenizer.chat_template.NAME from the model
          --messages FILE          a JSON array of messages (or an object with "messages" and "tools");
                                   Hugging Face's message normalisation is applied
          --tools FILE             a JSON array of tool definitions
          --documents FILE         a JSON array of documents (for retrieval templates)
          --add-generation-prompt  end with the assistant prompt
          --continue-final-message cut the output after the last message's content, so the model
                                   continues it (prefill)
          --extra FILE             a JSON object of extra variables (e.g. {"enable_thinking": false})
          --context FILE           a JSON object: exactly the template's variables, key order kept
          --bos TEXT, --eos TEXT   override the BOS/EOS token text
          --now ISO8601            the time strftime_now formats (default: now, local time)

        Prints exactly the rendered text, with no added newline. A model without a chat template
        renders messages as "role: content" lines followed by "assistant:" (see PlainChatFormat).

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, flags: ["add-generation-prompt", "continue-final-message"],
                                 options: ["model", "template", "template-name", "messages", "tools", "documents", "extra",
                                           "context", "now", "bos", "eos"],
                                 aliases: ["m": "model"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        if (args.value("messages") == nil) == (args.value("context") == nil) {
            throw UsageError("give exactly one of --messages and --context")
        }
        if args.value("model") != nil && args.value("template") != nil {
            throw UsageError("give either -m/--model or --template, not both")
        }
        var now = TemplateDateTime.current()
        if let text = args.value("now") {
            guard let parsed = TemplateDateTime(iso8601: text) else { throw UsageError("--now expects YYYY-MM-DD[THH:MM[:SS]], got '\(text)'") }
            now = parsed
        }

        var source: String?
        var bos = "", eos = ""
        if let path = args.value("template") {
            source = try FileInput.text(path)
        } else {
            let file = try GGUFFile(path: args.modelPath)
            source = file.chatTemplateSource(named: args.value("template-name"))
            if source == nil, let name = args.value("template-name") {
                throw RuntimeError("\(file.path) has no chat template named '\(name)'")
            }
            bos = file.bosTokenText
            eos = file.eosTokenText
        }
        bos = args.value("bos") ?? bos
        eos = args.value("eos") ?? eos

        if let contextPath = args.value("context") {
            guard let source else { throw RuntimeError("the model has no chat template; --context needs one") }
            guard case .object(let context) = try readJSON(contextPath) else {
                throw RuntimeError("\(contextPath): expected a JSON object")
            }
            StandardOutput.write(try render(source) { template throws(TemplateError) in
                try template.render(context: context, now: now)
            })
            return
        }

        let messagesPath = args.value("messages")!
        var tools: [JSONValue]?
        let messages: [JSONValue]
        switch try readJSON(messagesPath) {
        case .array(let items):
            messages = items
        case .object(let object):
            guard let items = object["messages"]?.arrayValue else { throw RuntimeError("\(messagesPath): no \"messages\" array") }
            messages = items
            tools = object["tools"]?.arrayValue
        default:
            throw RuntimeError("\(messagesPath): expected a JSON array of messages")
        }
        if let toolsPath = args.value("tools") {
            guard case .array(let items) = try readJSON(toolsPath) else { throw RuntimeError("\(toolsPath): expected a JSON array") }
            tools = items
        }
        var documents: [JSONValue]?
        if let documentsPath = args.value("documents") {
            guard case .array(let items) = try readJSON(documentsPath) else { throw RuntimeError("\(documentsPath): expected a JSON array") }
            documents = items
        }
        var extra = JSONObject()
        if let extraPath = args.value("extra") {
            guard case .object(let object) = try readJSON(extraPath) else { throw RuntimeError("\(extraPath): expected a JSON object") }
            extra = object
        }
        let addPrompt = args.has("add-generation-prompt")
        guard let source else {
            StandardOutput.write(PlainChatFormat.render(messages: messages, addGenerationPrompt: addPrompt))
            return
        }
        StandardOutput.write(try render(source) { template throws(TemplateError) in
            try template.render(messages: messages, tools: tools, documents: documents, addGenerationPrompt: addPrompt,
                                bosToken: bos, eosToken: eos, extra: extra,
                                continueFinalMessage: args.has("continue-final-message"), now: now)
        })
    }

    private static func render(_ source: String, _ body: (ChatTemplate) throws(TemplateError) -> String) throws -> String {
        do {
            return try body(try ChatTemplate(source: source))
        } catch {
            throw RuntimeError(error.description)
        }
    }

    private static func readJSON(_ path: String) throws -> JSONValue {
        do {
            return try JSONValue(parsing: try FileInput.bytes(path))
        } catch let error as JSONParseError {
            throw RuntimeError("\(path): \(error)")
        }
    }
}
