// Assembles streamed `chat.completion.chunk` deltas into one message. Fixes upstream's
// defects (seed-003 §2): tool-call fragments are routed by `index` and `id`/`name` are set
// once (never `id + id`), and a chunk carrying both content and tool calls keeps both.
import LoomJSON
import Provider

/// Why a streamed chunk could not be applied.
public enum ChatCompletionStreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The chunk is not a JSON object with the expected shape.
    case malformedChunk(String)
    /// The server sent an error object inside the stream (e.g. `data: {"error": {…}}`).
    case serverError(ChatCompletionsErrorEnvelope)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .malformedChunk(let why): "malformed stream chunk: \(why)"
        case .serverError(let e): "server error in stream: \(e.message)"
        }
    }
}

/// Accumulates the deltas of one choice of a streamed Chat Completion.
public struct ChatCompletionDeltaAccumulator: Sendable {
    /// A tool call as assembled so far.
    public struct ToolCall: Sendable, Equatable {
        /// The call's position in the message (the server's `index`).
        public var index: Int
        /// The call id (set by the first delta that carries one).
        public var id: String?
        /// The function name (set by the first delta that carries one).
        public var name: String
        /// The JSON arguments text, concatenated from fragments.
        public var arguments: String

        /// Creates a tool call.
        public init(index: Int, id: String?, name: String, arguments: String) {
            self.index = index
            self.id = id
            self.name = name
            self.arguments = arguments
        }
    }

    /// What one chunk added, in order, for forwarding as stream events.
    public enum Delta: Sendable, Equatable {
        /// Visible text.
        case content(String)
        /// Reasoning text (`reasoning_content`, or `reasoning` as some servers name it).
        case reasoning(String)
        /// A tool call's name became known (with its id, when already sent).
        case toolCallStarted(index: Int, id: String?, name: String)
        /// More argument text for the call at `index`.
        case toolCallArguments(index: Int, fragment: String)
    }

    /// The choice this accumulator follows.
    public let choiceIndex: Int
    /// The message role, once sent.
    public private(set) var role: String?
    /// All visible text so far.
    public private(set) var content = ""
    /// All reasoning text so far.
    public private(set) var reasoning = ""
    /// All refusal text so far: OpenAI's `refusal` field, which a server sends instead of
    /// `content` when the model declines.
    public private(set) var refusal = ""
    /// Tool calls in index order.
    public var toolCalls: [ToolCall] { calls.sorted { $0.index < $1.index } }
    /// The finish reason, once sent (`stop`, `length`, `tool_calls`, `content_filter`, …).
    public private(set) var finishReason: String?
    /// The `usage` object (sent last with `stream_options.include_usage`).
    public private(set) var usage: JSONObject?
    /// The response id and model, from the first chunk that names them.
    public private(set) var responseID: String?
    /// The model the server reports.
    public private(set) var model: String?
    /// Every `choices[].logprobs.content[]` element received, in order (requests that asked
    /// for log-probabilities).
    public private(set) var logProbabilities: [TokenLogProbability] = []
    /// The elements of the last applied chunk.
    public private(set) var chunkLogProbabilities: [TokenLogProbability] = []

    private var calls: [ToolCall] = []
    /// Server index → position in `calls`; rebuilt when a server reuses an index for a new call.
    private var slotForIndex: [Int: Int] = [:]

    /// Creates an accumulator for choice `choiceIndex` (0 unless `n` > 1 was requested).
    public init(choiceIndex: Int = 0) {
        self.choiceIndex = choiceIndex
    }

    /// Applies one SSE `data` payload (already known not to be `[DONE]`).
    public mutating func apply(data: String) throws(ChatCompletionStreamError) -> [Delta] {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw .malformedChunk(error.description)
        }
        return try apply(chunk: json)
    }

    /// Applies one parsed chunk; returns what it added.
    public mutating func apply(chunk: JSONValue) throws(ChatCompletionStreamError) -> [Delta] {
        guard let object = chunk.objectValue else { throw .malformedChunk("not a JSON object") }
        if object["error"] != nil, let envelope = ChatCompletionsErrorEnvelope(body: Array(chunk.serialized().utf8)) {
            throw .serverError(envelope)
        }
        if responseID == nil { responseID = object["id"]?.stringValue }
        if model == nil { model = object["model"]?.stringValue }
        if let u = object["usage"]?.objectValue { usage = u }
        guard let choices = object["choices"]?.arrayValue else { return [] }
        var out: [Delta] = []
        chunkLogProbabilities = []
        for (position, choice) in choices.enumerated() {
            guard let c = choice.objectValue else { throw .malformedChunk("choice is not an object") }
            guard (c["index"]?.intValue ?? position) == choiceIndex else { continue }
            if let reason = c["finish_reason"]?.stringValue { finishReason = reason }
            if let items = c["logprobs"]?["content"]?.arrayValue {
                for item in items {
                    guard let entry = TokenLogProbability(jsonValue: item) else {
                        throw .malformedChunk("a logprobs.content element is not a token log-probability")
                    }
                    chunkLogProbabilities.append(entry)
                }
                logProbabilities += chunkLogProbabilities
            }
            // Some servers put a whole message in `message` even when streaming.
            guard let delta = (c["delta"] ?? c["message"])?.objectValue else { continue }
            if let r = delta["role"]?.stringValue { role = r }
            if let text = (delta["reasoning_content"] ?? delta["reasoning"])?.stringValue, !text.isEmpty {
                reasoning += text
                out.append(.reasoning(text))
            }
            if let text = delta["refusal"]?.stringValue { refusal += text }
            if let text = delta["content"]?.stringValue, !text.isEmpty {
                content += text
                out.append(.content(text))
            }
            if let toolDeltas = delta["tool_calls"]?.arrayValue {
                for (i, d) in toolDeltas.enumerated() {
                    guard let t = d.objectValue else { throw .malformedChunk("tool call delta is not an object") }
                    out += applyToolCall(t, fallbackIndex: i)
                }
            }
        }
        return out
    }

    private mutating func applyToolCall(_ t: JSONObject, fallbackIndex: Int) -> [Delta] {
        let index = t["index"]?.intValue ?? fallbackIndex
        let id = t["id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let function = t["function"]?.objectValue
        let name = function?["name"]?.stringValue ?? ""
        // Arguments are JSON text by the protocol, but some servers (Ollama's native shape,
        // some non-streaming answers) send the object itself: keep it as text, never drop it.
        let fragment: String
        switch function?["arguments"] {
        case .string(let text)?: fragment = text
        case .null?, nil: fragment = ""
        case let value?: fragment = value.serialized()
        }
        var out: [Delta] = []

        var slot = slotForIndex[index]
        // A server that streams several calls under one index (seen from Ollama) gives each a
        // new id: a different id at a used index with a named call means a new call.
        if let s = slot, let id, let existing = calls[s].id, existing != id, !calls[s].name.isEmpty {
            slot = nil
        }
        if let s = slot {
            if calls[s].id == nil, let id { calls[s].id = id }
            if calls[s].name.isEmpty && !name.isEmpty {
                calls[s].name = name
                out.append(.toolCallStarted(index: calls[s].index, id: calls[s].id, name: name))
            }
            if !fragment.isEmpty {
                calls[s].arguments += fragment
                out.append(.toolCallArguments(index: calls[s].index, fragment: fragment))
            }
            return out
        }
        // A reused index gets the next free position so earlier calls stay intact.
        let assigned = slotForIndex[index] == nil ? index : (calls.map(\.index).max() ?? index) + 1
        calls.append(ToolCall(index: assigned, id: id, name: name, arguments: fragment))
        slotForIndex[index] = calls.count - 1
        if assigned != index { slotForIndex[assigned] = calls.count - 1 }
        if !name.isEmpty { out.append(.toolCallStarted(index: assigned, id: id, name: name)) }
        if !fragment.isEmpty { out.append(.toolCallArguments(index: assigned, fragment: fragment)) }
        return out
    }
}
