import LoomJSON
import Provider

/// What the output parser recognised in generated text.
public enum ToolCallStreamEvent: Sendable, Equatable {
    /// Answer text.
    case text(String)
    /// Reasoning text (between the reasoning markers, markers excluded).
    case reasoning(String)
    /// A call began: its id and tool name are known, its arguments follow as deltas.
    case toolCallStarted(id: String, name: String)
    /// More of a started call's arguments, as JSON text (the deltas of one call concatenate to
    /// the arguments object exactly as generated).
    case toolCallArguments(id: String, delta: String)
    /// A complete, parsed call (for a started call, with the same id).
    case toolCall(Transcript.ToolCall)
}

/// Splits generated text, fed incrementally in chunks of any size, into text deltas, reasoning
/// deltas and completed tool calls.
///
/// Nothing that might be the start of a marker is emitted as text: bytes that could begin
/// `<tool_call>`, `<think>`, … are held back until the next chunk decides (and a character split
/// across chunks is held until complete), so the events are the same however the text is chunked.
/// Rules:
/// - The first occurrence of the dialect's call opener starts the calls (the call grammar keeps
///   text from containing it). With `callsOnlyAtStart` (whole-reply dialects, or a response schema),
///   an opener counts only at the start of the reply (after whitespace, or after a reasoning block);
///   the whitespace before it is dropped.
/// - With `streamsArguments`, a call whose JSON starts `{"name": "<tool>", "arguments": {` (the
///   order the call grammar produces) streams: `.toolCallStarted` as soon as the arguments object opens, then
///   `.toolCallArguments` deltas, then `.toolCall` with the parsed call. Other calls (arguments
///   first, or as a JSON string) arrive whole as `.toolCall`.
/// - A call is the JSON value after the opener (an object, or Mistral's array of objects) with
///   `name` and `arguments` (`parameters` for Llama 3; arguments given as a JSON string are decoded).
///   Whitespace, closers (`</tool_call>`) and further calls may follow; any other text after the
///   calls comes out as text.
/// - Llama 3: a reply starting with `{"name"` whose object is not a call is text, not an error.
/// - Reasoning opens with the open marker (or at the start with `startsInReasoning`) and ends with
///   the close marker; whitespace right after either marker is dropped.
/// - A call that opened but is not valid JSON, or is cut off at `finish()`, throws `malformedToolCall`.
public struct ToolCallStreamParser: Sendable {
    private enum Mode: Sendable { case text, reasoning, call, afterCall }

    /// The dialect whose calls are recognised; nil: calls are not parsed (tool calling disallowed).
    public let dialect: ToolCallDialect?
    /// The reasoning markers recognised; nil: none.
    public let reasoning: ReasoningMarkers?
    /// Whether a call is recognised only at the start of the reply.
    public let callsOnlyAtStart: Bool
    /// Whether calls stream (`.toolCallStarted`, `.toolCallArguments`) before `.toolCall`.
    public let streamsArguments: Bool
    private let makeCallID: @Sendable (Int) -> String

    private var buffer: [UInt8] = []
    private var mode: Mode
    /// Only whitespace (or a reasoning block) so far: a start-only call may still come.
    private var atStart = true
    /// Drop whitespace until the next other byte (after a reasoning marker).
    private var trimLeading = false
    private var span = JSONSpan()
    private var callText: [UInt8] = []
    /// The opener that started the current call was the first bytes of the JSON itself (Llama 3).
    private var callIsBareJSON = false
    private var closerPending = false
    /// Where the call object being read opened in `callText` (its `{`), and its depth.
    private var objectStart = -1
    private var objectDepth = 0
    /// The call whose arguments are streaming, the depth inside its arguments, and the
    /// argument bytes not yet emitted.
    private var streamingID: String?
    /// Ids of the streamed calls by their position in the current JSON value.
    private var streamedIDs: [Int: String] = [:]
    /// Call objects opened in the current JSON value.
    private var objectCount = 0
    /// Call objects of an array already emitted as calls (each as soon as it closed).
    private var emittedObjects: Set<Int> = []
    /// Ids generated so far (the argument of `makeCallID`).
    private var generatedIDs = 0
    private var pendingArguments: [UInt8] = []
    /// Every call parsed so far, in order.
    public private(set) var calls: [Transcript.ToolCall] = []

    /// Builds a parser.
    /// - Parameters:
    ///   - dialect: the model's dialect, or nil when calls must not be parsed.
    ///   - reasoning: the reasoning markers to recognise, or nil.
    ///   - startsInReasoning: the prompt already opened a reasoning block (`promptOpensReasoning`).
    ///   - callsOnlyAtStart: nil = the dialect's rule (`!allowsTextBeforeCalls`); pass true when a
    ///     response schema is in force, so an opener inside the JSON answer is not a call.
    ///   - streamsArguments: announce calls and stream their arguments as they are generated
    ///     (off: each call arrives whole as `.toolCall`).
    ///   - makeCallID: the n-th generated id (0-based), for calls that stream or where the model
    ///     wrote no id; by
    ///     default 9 random alphanumerics (the form Mistral's templates require).
    public init(dialect: ToolCallDialect?, reasoning: ReasoningMarkers? = nil, startsInReasoning: Bool = false,
                callsOnlyAtStart: Bool? = nil, streamsArguments: Bool = false,
                makeCallID: @escaping @Sendable (Int) -> String = { _ in ToolCallStreamParser.randomCallID() }) {
        self.dialect = dialect
        self.reasoning = reasoning
        self.callsOnlyAtStart = callsOnlyAtStart ?? !(dialect?.allowsTextBeforeCalls ?? true)
        self.makeCallID = makeCallID
        self.streamsArguments = streamsArguments
        mode = startsInReasoning && reasoning != nil ? .reasoning : .text
        trimLeading = mode == .reasoning
    }

    /// Nine random letters and digits.
    public static func randomCallID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var g = SystemRandomNumberGenerator()
        return String((0..<9).map { _ in alphabet[Int(g.next() % UInt64(alphabet.count))] })
    }

    /// Feeds a chunk of generated text; returns the events it completes.
    public mutating func consume(_ text: String) throws(ToolCallingError) -> [ToolCallStreamEvent] {
        try consume(bytes: Array(text.utf8))
    }

    /// Feeds a chunk of generated UTF-8 (it may end inside a character); returns the events it completes.
    public mutating func consume(bytes: [UInt8]) throws(ToolCallingError) -> [ToolCallStreamEvent] {
        buffer.append(contentsOf: bytes)
        return try process(final: false)
    }

    /// Ends the stream: releases held-back text and checks no call was left open.
    public mutating func finish() throws(ToolCallingError) -> [ToolCallStreamEvent] {
        try process(final: true)
    }

    // MARK: - Machine

    private struct Marker {
        let bytes: [UInt8]
        let opensReasoning: Bool
        /// For call markers: whether the marker is consumed (false: it is the JSON's own start).
        let consumed: Bool
    }

    private var textMarkers: [Marker] {
        var out: [Marker] = []
        if let reasoning { out.append(Marker(bytes: Array(reasoning.open.utf8), opensReasoning: true, consumed: true)) }
        if let dialect, !callsOnlyAtStart || atStart {
            out += callMarkers(dialect)
        }
        return out
    }

    private func callMarkers(_ dialect: ToolCallDialect) -> [Marker] {
        switch dialect.family {
        case .llama3:
            return [Marker(bytes: Array("<|python_tag|>".utf8), opensReasoning: false, consumed: true),
                    Marker(bytes: Array(dialect.callOpener.utf8), opensReasoning: false, consumed: false)]
        default:
            return [Marker(bytes: Array(dialect.callOpener.utf8), opensReasoning: false, consumed: true)]
        }
    }

    private mutating func process(final: Bool) throws(ToolCallingError) -> [ToolCallStreamEvent] {
        var events: [ToolCallStreamEvent] = []
        func emit(_ e: ToolCallStreamEvent) {
            switch (events.last, e) {
            case (.text(let a)?, .text(let b)): events[events.count - 1] = .text(a + b)
            case (.reasoning(let a)?, .reasoning(let b)): events[events.count - 1] = .reasoning(a + b)
            default: events.append(e)
            }
        }
        var progress = true
        while progress {
            progress = false
            if trimLeading {
                let n = buffer.prefix { isSpace($0) }.count
                buffer.removeFirst(n)
                if !buffer.isEmpty { trimLeading = false }
            }
            switch mode {
            case .text:
                progress = try textStep(final: final, emit)
            case .reasoning:
                progress = reasoningStep(final: final, emit)
            case .call:
                progress = try callStep(final: final, emit)
            case .afterCall:
                progress = afterCallStep(final: final)
            }
        }
        return events
    }

    private mutating func textStep(final: Bool, _ emit: (ToolCallStreamEvent) -> Void) throws(ToolCallingError) -> Bool {
        guard !buffer.isEmpty else { return false }
        let markers = textMarkers
        // The earliest complete marker (a start-only call marker only after leading whitespace).
        var best: (at: Int, marker: Marker)?
        for m in markers {
            guard let at = find(m.bytes, in: buffer) else { continue }
            if !m.opensReasoning && callsOnlyAtStart && !buffer[..<at].allSatisfy(isSpace) { continue }
            if best == nil || at < best!.at { best = (at, m) }
        }
        if let (at, m) = best {
            if m.opensReasoning || !callsOnlyAtStart {
                emitText(Array(buffer[..<at]), emit)
            }
            buffer.removeFirst(at + (m.consumed ? m.bytes.count : 0))
            if m.opensReasoning {
                mode = .reasoning
                trimLeading = true
            } else {
                mode = .call
                span = JSONSpan()
                callText = []
                resetCallTracking()
                callIsBareJSON = !m.consumed
            }
            return true
        }
        if callsOnlyAtStart && atStart && dialect != nil && !final {
            // Hold leading whitespace plus a possible opener prefix until it is decided.
            let rest = buffer.drop { isSpace($0) }
            if markers.contains(where: { !$0.opensReasoning && $0.bytes.starts(with: rest) }) { return false }
            if let reasoning, Array(reasoning.open.utf8).starts(with: rest) { return false }
        }
        var hold = 0
        if !final {
            for m in markers { hold = max(hold, partialSuffix(m.bytes, of: buffer)) }
            hold = max(hold, incompleteUTF8Tail(buffer))
        }
        let n = buffer.count - hold
        guard n > 0 else { return false }
        emitText(Array(buffer[..<n]), emit)
        buffer.removeFirst(n)
        return true
    }

    private mutating func emitText(_ bytes: [UInt8], _ emit: (ToolCallStreamEvent) -> Void) {
        guard !bytes.isEmpty else { return }
        if !bytes.allSatisfy(isSpace) { atStart = false }
        emit(.text(String(decoding: bytes, as: UTF8.self)))
    }

    private mutating func reasoningStep(final: Bool, _ emit: (ToolCallStreamEvent) -> Void) -> Bool {
        guard let reasoning, !buffer.isEmpty else { return false }
        let close = Array(reasoning.close.utf8)
        if let at = find(close, in: buffer) {
            if at > 0 { emit(.reasoning(String(decoding: buffer[..<at], as: UTF8.self))) }
            buffer.removeFirst(at + close.count)
            mode = .text
            atStart = true
            trimLeading = true
            return true
        }
        let hold = final ? 0 : max(partialSuffix(close, of: buffer), incompleteUTF8Tail(buffer))
        let n = buffer.count - hold
        guard n > 0 else { return false }
        emit(.reasoning(String(decoding: buffer[..<n], as: UTF8.self)))
        buffer.removeFirst(n)
        return true
    }

    private mutating func callStep(final: Bool, _ emit: (ToolCallStreamEvent) -> Void) throws(ToolCallingError) -> Bool {
        var used = 0
        var done = false
        for b in buffer {
            used += 1
            let before = span.depth
            switch span.feed(b) {
            case .skip: continue
            case .more: callText.append(b)
            case .complete:
                callText.append(b)
                done = true
            case .invalid:
                callText.append(b)
                throw .malformedToolCall(text: String(decoding: callText, as: UTF8.self), reason: "expected a JSON object or array after the call opener")
            }
            track(byte: b, depthBefore: before, emit)
            if done { break }
        }
        buffer.removeFirst(used)
        flushArguments(final: done || final, emit)
        guard done else {
            if final {
                throw .malformedToolCall(text: String(decoding: callText, as: UTF8.self), reason: "the output ended inside the call")
            }
            return false
        }
        let text = String(decoding: callText, as: UTF8.self)
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch {
            throw .malformedToolCall(text: text, reason: "invalid JSON: \(error)")
        }
        let objects = value.arrayValue ?? [value]
        var parsed: [Transcript.ToolCall] = []
        for (index, object) in objects.enumerated() where !emittedObjects.contains(index) {
            guard let call = makeCall(object, index: index) else {
                if callIsBareJSON {
                    // Llama 3: a JSON reply that merely starts like a call is answer text.
                    atStart = false
                    emit(.text(text))
                    mode = .text
                    return true
                }
                throw .malformedToolCall(text: text, reason: "a call needs a string \"name\" and object \"\(dialect?.argumentsKey ?? "arguments")\"")
            }
            parsed.append(call)
        }
        for call in parsed {
            calls.append(call)
            emit(.toolCall(call))
        }
        mode = .afterCall
        closerPending = dialect?.blockCloser != nil
        return true
    }

    private mutating func afterCallStep(final: Bool) -> Bool {
        let n = buffer.prefix { isSpace($0) }.count
        buffer.removeFirst(n)
        guard !buffer.isEmpty else { return n > 0 }
        if closerPending, let closer = dialect?.blockCloser.map({ Array($0.utf8) }) {
            if buffer.starts(with: closer) {
                buffer.removeFirst(closer.count)
                closerPending = false
                return true
            }
            if closer.starts(with: buffer) {
                if !final { return n > 0 }
                buffer.removeAll()  // a closer cut off by the end of generation
                closerPending = false
                return true
            }
            closerPending = false  // a missing closer is tolerated
        }
        if let dialect {
            for m in callMarkers(dialect) {
                if buffer.starts(with: m.bytes) {
                    buffer.removeFirst(m.consumed ? m.bytes.count : 0)
                    mode = .call
                    span = JSONSpan()
                    callText = []
                    resetCallTracking()
                    callIsBareJSON = !m.consumed
                    return true
                }
                if m.bytes.starts(with: buffer) && !final { return n > 0 }
            }
        }
        mode = .text
        atStart = false
        return true
    }

    private mutating func resetCallTracking() {
        objectStart = -1
        objectDepth = 0
        streamingID = nil
        streamedIDs = [:]
        emittedObjects = []
        objectCount = 0
        pendingArguments = []
    }

    private mutating func nextID() -> String {
        generatedIDs += 1
        return makeCallID(generatedIDs - 1)
    }

    /// Follows the call objects inside the JSON being read to stream their arguments.
    private mutating func track(byte b: UInt8, depthBefore: Int, _ emit: (ToolCallStreamEvent) -> Void) {
        if streamingID != nil {
            pendingArguments.append(b)
            if !span.inString && span.depth == objectDepth {
                // The arguments object closed.
                flushArguments(final: true, emit)
                streamingID = nil
            }
            return
        }
        if !span.inString, b == UInt8(ascii: "}"), objectStart >= 0, span.depth == objectDepth - 1, objectDepth == 2 {
            // An element of Mistral's array closed: it is complete on its own.
            let text = String(decoding: callText[objectStart...], as: UTF8.self)
            if let value = try? JSONValue(parsing: text), let call = makeCall(value, index: objectCount - 1) {
                emittedObjects.insert(objectCount - 1)
                calls.append(call)
                emit(.toolCall(call))
            }
            return
        }
        guard !span.inString, b == UInt8(ascii: "{") else { return }
        let depth = span.depth
        if objectStart < 0 || depth <= objectDepth {
            // A call object opens: at the top, or as an element of Mistral's array.
            if depthBefore == 0 || (depthBefore == 1 && callText.first == UInt8(ascii: "[")) {
                objectStart = callText.count - 1
                objectDepth = depth
                objectCount += 1
            }
            return
        }
        guard streamsArguments, depth == objectDepth + 1, objectStart >= 0 else { return }
        // A nested object opens as a member value of the call object: stream it if the members so
        // far are exactly the name and then the arguments key.
        let head = Array(callText[objectStart..<(callText.count - 1)]) + Array("0}".utf8)
        guard case .object(let o)? = try? JSONValue(parsing: String(decoding: head, as: UTF8.self)),
              o.keys.count == 2, o.keys[0] == "name", let name = o["name"]?.stringValue,
              o.keys[1] == (dialect?.argumentsKey ?? "arguments") || o.keys[1] == "arguments" else { return }
        let id = nextID()
        streamingID = id
        streamedIDs[objectCount - 1] = id
        pendingArguments = [b]
        emit(.toolCallStarted(id: id, name: name))
    }

    /// Emits the argument bytes held so far (all of them at the end, else up to a whole character).
    private mutating func flushArguments(final: Bool, _ emit: (ToolCallStreamEvent) -> Void) {
        guard let id = streamingID, !pendingArguments.isEmpty else { return }
        let n = pendingArguments.count - (final ? 0 : incompleteUTF8Tail(pendingArguments))
        guard n > 0 else { return }
        emit(.toolCallArguments(id: id, delta: String(decoding: pendingArguments[..<n], as: UTF8.self)))
        pendingArguments.removeFirst(n)
    }

    private mutating func makeCall(_ object: JSONValue, index: Int) -> Transcript.ToolCall? {
        guard case .object(let o) = object, let name = o["name"]?.stringValue else { return nil }
        var arguments = o[dialect?.argumentsKey ?? "arguments"] ?? o["arguments"] ?? o["parameters"]
        if let s = arguments?.stringValue { arguments = try? JSONValue(parsing: s) }
        guard let arguments, arguments.objectValue != nil else { return nil }
        // A streamed call keeps the id it was announced with; others use the model's id if it wrote one.
        let id = streamedIDs[index] ?? o["id"]?.stringValue ?? nextID()
        return Transcript.ToolCall(id: id, toolName: name, arguments: GeneratedContent(jsonValue: arguments))
    }
}

/// Tracks where a JSON object or array ends in a byte stream (strings and escapes respected).
private struct JSONSpan: Sendable {
    enum Step { case skip, more, complete, invalid }
    private(set) var depth = 0
    private(set) var inString = false
    private var escape = false

    mutating func feed(_ b: UInt8) -> Step {
        if depth == 0 {
            if isSpace(b) { return .skip }
            guard b == UInt8(ascii: "{") || b == UInt8(ascii: "[") else { return .invalid }
            depth = 1
            return .more
        }
        if inString {
            if escape { escape = false } else if b == UInt8(ascii: "\\") { escape = true } else if b == UInt8(ascii: "\"") { inString = false }
            return .more
        }
        switch b {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            if depth == 0 { return .complete }
        default: break
        }
        return .more
    }
}

@inline(__always) private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

/// The first index where `needle` occurs in `hay`.
private func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
    guard !needle.isEmpty, needle.count <= hay.count else { return nil }
    let first = needle[0]
    var i = 0
    while i + needle.count <= hay.count {
        if hay[i] == first && hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
        i += 1
    }
    return nil
}

/// The length of the longest suffix of `hay` that is a proper prefix of `marker`.
private func partialSuffix(_ marker: [UInt8], of hay: [UInt8]) -> Int {
    var k = min(marker.count - 1, hay.count)
    while k > 0 {
        if hay[(hay.count - k)...].elementsEqual(marker[..<k]) { return k }
        k -= 1
    }
    return 0
}

/// The number of bytes at the end of `bytes` that start a UTF-8 character not yet complete.
private func incompleteUTF8Tail(_ bytes: [UInt8]) -> Int {
    var k = 0
    var i = bytes.count - 1
    while i >= 0, k < 4 {
        let b = bytes[i]
        k += 1
        if b & 0xC0 != 0x80 {
            let need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
            return need > k ? k : 0
        }
        i -= 1
    }
    return 0
}
