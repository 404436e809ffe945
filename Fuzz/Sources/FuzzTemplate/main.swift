// The Jinja chat-template engine on arbitrary template sources, rendered against fixed conversations.
//
// Input layout: byte 0 picks the conversation and flags, the rest is the template source.
// Properties: parsing and rendering never trap, hang or overflow the stack (limits are lowered
// so runaway templates end quickly with `.limit`); rendering is deterministic; output respects
// the output budget.
import ChatTemplate
import FuzzSupport
import LoomJSON

let limits = TemplateLimits(maximumOutputBytes: 1 << 16, maximumSteps: 50_000, maximumCallDepth: 16, maximumNesting: 100)
let now = TemplateDateTime(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5)

let tool: JSONValue = ["type": "function", "function": [
    "name": "get_weather", "description": "Weather for a city",
    "parameters": ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]],
]]
let conversations: [[JSONValue]] = [
    [["role": "user", "content": "Hello"]],
    [["role": "system", "content": "Be brief."], ["role": "user", "content": "2+2?"],
     ["role": "assistant", "content": "4"], ["role": "user", "content": "and <|im_end|>{{ 7*7 }}?"]],
    [["role": "user", "content": "weather?"],
     ["role": "assistant", "content": nil, "tool_calls": [["type": "function", "id": "c1",
        "function": ["name": "get_weather", "arguments": ["city": "Paris"]]]]],
     ["role": "tool", "tool_call_id": "c1", "content": "sunny"]],
    [["role": "user", "content": [["type": "text", "text": "multi"], ["type": "image"]]],
     ["role": "assistant", "content": "ok", "reasoning_content": "thinking…"]],
    [],
]

FuzzEntry.run { bytes in
    var input = FuzzInput(bytes)
    let selector = Int(input.byte())
    let source = String(decoding: input.rest(), as: UTF8.self)
    guard let template = try? ChatTemplate(source: source, limits: limits) else { return }
    let messages = conversations[selector % conversations.count]
    let tools: [JSONValue]? = selector & 8 != 0 ? [tool] : nil
    let generationPrompt = selector & 16 != 0
    func render() -> Result<String, TemplateError> {
        Result { () throws(TemplateError) -> String in
            try template.render(messages: messages, tools: tools, addGenerationPrompt: generationPrompt,
                                bosToken: "<s>", eosToken: "</s>", extra: JSONObject([("enable_thinking", false)]),
                                continueFinalMessage: selector & 32 != 0 && !generationPrompt, now: now)
        }
    }
    let first = render()
    if case .success(let text) = first, text.utf8.count > limits.maximumOutputBytes {
        FuzzEntry.violation("output of \(text.utf8.count) bytes exceeds the \(limits.maximumOutputBytes)-byte budget")
    }
    if selector & 64 != 0 {
        let second = render()
        if first != second { FuzzEntry.violation("two renders differ: \(first) vs \(second)") }
    }
}
