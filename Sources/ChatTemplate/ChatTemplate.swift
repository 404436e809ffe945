import LoomJSON

/// A model's chat template (`tokenizer.chat_template`), parsed once and rendered many times.
///
/// The template language is the Jinja2 subset Hugging Face chat templates use, with the exact
/// semantics of `transformers`' `apply_chat_template`: an immutable sandbox with
/// `trim_blocks`/`lstrip_blocks`, the `loopcontrols` extension and the `{% generation %}` tag,
/// Python values (`str()` of `True`/`None`/dicts, code-point strings, insertion-ordered dicts,
/// lenient undefined values), `tojson` as `json.dumps(..., ensure_ascii=False)`, and the globals
/// `raise_exception`, `strftime_now`, `namespace`, `range` and `dict`.
///
/// Rendering is bounded by `limits`: runaway loops, deep recursion and huge outputs end with a
/// `TemplateError` of kind `.limit`.
///
/// A template holds no per-render state, so one value can render from many threads at once:
///
///     let template = try ChatTemplate(source: jinjaSource)
///     let prompt = try template.render(messages: [["role": "user", "content": "Hi!"]],
///                                      addGenerationPrompt: true, bosToken: "<s>", eosToken: "</s>")
///
/// Known differences from Python Jinja2, all outside what chat templates use: integers are
/// 64-bit (an overflow is an `.arithmetic` error; JSON integers beyond 64 bits arrive as
/// floats); the filters `groupby`, `filesizeformat`, `pprint`, `random`, `urlencode`, `urlize`,
/// `wordwrap` and `xmlattr` and the global `lipsum` are not provided (a run-time error names
/// them); identifiers are ASCII; `{% include %}`, `{% extends %}`, `{% import %}` and blocks
/// are not supported (there is no loader); upper/lower-case mappings follow Swift's Unicode
/// tables.
public struct ChatTemplate: Sendable {
    /// The template text as given.
    public let source: String
    /// The resource budget applied to every render.
    public var limits: TemplateLimits
    let nodes: [Node]
    /// Names each frame starts as undefined instead of resolving from outside.
    let frames: TemplateFrameAnalysis.Result

    /// Parses `source`; throws a `.syntax` error with line and column when it is malformed, and
    /// an `.assertion` error for an unknown filter or test outside an `if` (as Jinja2 does).
    public init(source: String, limits: TemplateLimits = .standard) throws(TemplateError) {
        self.source = source
        self.limits = limits
        var parser = try TemplateParser(source: source)
        nodes = try parser.parseTemplate()
        try TemplateValidation.check(nodes)
        frames = TemplateFrameAnalysis.analyze(nodes)
    }

    /// Renders with exactly the variables of `context` (what `Template.render(**context)` gets).
    /// - Parameters:
    ///   - context: the template's variables, JSON-decoded with key order kept.
    ///   - now: the time `strftime_now` formats.
    public func render(context: JSONObject, now: TemplateDateTime = .current()) throws(TemplateError) -> String {
        // The render context sits below the template's own top-level frame, so that what the
        // template assigns is told apart from what it was given (Jinja2 keeps them apart too).
        let variables = Scope(parent: nil)
        for (key, value) in context { variables[key] = Value(json: value) }
        let root = Scope(parent: variables)
        for name in frames.root { root[name] = .missing(name) }
        let interpreter = TemplateInterpreter(limits: limits, now: now, frames: frames.frames)
        defer { interpreter.releaseCycles() }
        try interpreter.execute(nodes, root)
        return interpreter.output
    }

    /// Renders with the variables of an unordered dictionary (top-level order never matters;
    /// nested objects keep their own order).
    public func render(variables: [String: JSONValue], now: TemplateDateTime = .current()) throws(TemplateError) -> String {
        var context = JSONObject()
        for key in variables.keys.sorted() { context[key] = variables[key] }
        return try render(context: context, now: now)
    }

    /// Renders a conversation the way `apply_chat_template` does.
    ///
    /// Messages are normalised as transformers 5 does (see `normalizedContext`), and the context
    /// holds `messages`, `tools` and `documents` (`None` when nil),
    /// `add_generation_prompt`, `bos_token`, `eos_token` and then every member of `extra`
    /// (e.g. `enable_thinking`), which may override the others.
    ///
    /// With `continueFinalMessage`, the output is cut right after the last message's content so
    /// the model continues it (prefill), exactly as transformers does; it cannot be combined
    /// with `addGenerationPrompt`.
    public func render(messages: [JSONValue], tools: [JSONValue]? = nil, documents: [JSONValue]? = nil,
                       addGenerationPrompt: Bool, bosToken: String, eosToken: String, extra: JSONObject = JSONObject(),
                       continueFinalMessage: Bool = false,
                       now: TemplateDateTime = .current()) throws(TemplateError) -> String {
        if continueFinalMessage && addGenerationPrompt {
            throw TemplateError(.value, "continue_final_message and add_generation_prompt are not compatible. Use continue_final_message when you want the model to continue the final message, and add_generation_prompt when you want to add a header that will prompt it to start a new assistant message instead.")
        }
        let rendered = try render(context: ChatTemplate.normalizedContext(messages: messages, tools: tools,
                                                                          documents: documents,
                                                                          addGenerationPrompt: addGenerationPrompt,
                                                                          bosToken: bosToken, eosToken: eosToken, extra: extra),
                                  now: now)
        guard continueFinalMessage else { return rendered }
        return try ChatTemplate.cutAfterFinalMessage(rendered, messages.last)
    }

    /// transformers' `continue_final_message` post-processing: find the last occurrence of the
    /// final message's (stripped) text and end the output there, keeping the message's own
    /// trailing whitespace only when the template kept it too.
    static func cutAfterFinalMessage(_ rendered: String, _ message: JSONValue?) throws(TemplateError) -> String {
        var text: String?
        switch message?["content"] {
        case .string(let s)?: text = s
        case .array(let blocks)?:
            text = blocks.reversed().lazy.compactMap { $0["text"]?.stringValue }.first
            if text == nil {
                throw TemplateError(.value, "continue_final_message is set but we could not find any text to continue in the final message!")
            }
        default: break
        }
        guard let text else {
            throw TemplateError(.value, "continue_final_message is set but the final message has no text content")
        }
        let stripped = PythonString.strip(text, chars: nil, left: true, right: true)
        let hay = Array(rendered.utf8)
        guard let at = PythonString.rfind(hay, Array(stripped.utf8)) else {
            throw TemplateError(.value, "continue_final_message is set but the final message does not appear in the chat after applying the chat template! This can happen if the chat template deletes portions of the final message. Please verify the chat template and final message in your chat to ensure they are compatible.")
        }
        let leftStripped = Array(PythonString.strip(text, chars: nil, left: true, right: false).utf8)
        let end = at + leftStripped.count
        if end <= hay.count, hay[at..<end].elementsEqual(Array(text.utf8)) {
            return String(decoding: hay[..<end], as: UTF8.self)
        }
        return String(decoding: hay[..<(at + stripped.utf8.count)], as: UTF8.self)
    }

    /// The variables `apply_chat_template` passes to a template.
    ///
    /// Each message object loses members whose value is `null`, and a message with
    /// `reasoning_content` also gets a `thinking` copy (templates such as gpt-oss read it).
    public static func normalizedContext(messages: [JSONValue], tools: [JSONValue]?, documents: [JSONValue]? = nil,
                                         addGenerationPrompt: Bool,
                                         bosToken: String, eosToken: String,
                                         extra: JSONObject = JSONObject()) -> JSONObject {
        let normalized: [JSONValue] = messages.map { message in
            guard case .object(let object) = message else { return message }
            var out = JSONObject()
            for (key, value) in object where !value.isNull { out[key] = value }
            if let reasoning = out["reasoning_content"], out["thinking"] == nil { out["thinking"] = reasoning }
            return .object(out)
        }
        var context = JSONObject()
        context["messages"] = .array(normalized)
        context["tools"] = tools.map { .array($0) } ?? .null
        context["documents"] = documents.map { .array($0) } ?? .null
        context["add_generation_prompt"] = .bool(addGenerationPrompt)
        context["bos_token"] = .string(bosToken)
        context["eos_token"] = .string(eosToken)
        for (key, value) in extra { context[key] = value }
        return context
    }
}
