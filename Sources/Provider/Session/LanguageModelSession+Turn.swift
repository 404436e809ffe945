import Foundation
import LoomSupport

/// What a finished turn produced, before conversion to the caller's content type.
struct TurnOutput: Sendable {
    /// The final response's text (JSON text for structured output).
    var text: String
    /// The entries the turn added, from its prompt on.
    var entries: ArraySlice<Transcript.Entry>
    var toolCalls: [Transcript.ToolCall]
    var usage: Transcript.Usage?
}

/// The shared state of one executor step: the channel writes, the turn reads.
final class StepRecorder: Sendable {
    let assembler = Locked(TranscriptAssembler())
}

extension LanguageModelSession {
    /// Runs one turn: gate, prompt, executor steps and tool rounds, commit or revert.
    ///
    /// `onText` receives the current step's response text after every response event, in
    /// the calling task, before the executor's `send` returns — that is what makes streaming
    /// unbuffered.
    /// `finish` converts the output to the caller's type before the turn commits, so a
    /// response that does not parse fails the turn (and reverts the transcript) like any error.
    func runTurn<Result>(
        prompt: Prompt,
        schema: GenerationSchema?,
        includeSchemaInPrompt: Bool,
        options: GenerationOptions,
        onText: (@Sendable (String) -> Void)? = nil,
        finish: (TurnOutput) throws -> Result
    ) async throws -> Result {
        let active = activeProfile()
        let profile = active.resolution
        let driver = active.driver
        var (original, settings) = try state.withLock { state -> (Transcript, State) in
            if state.isResponding { throw Error.concurrentRequests }
            state.isResponding = true
            state.mutatedWhileResponding = false
            return (state.transcript, state)
        }
        settings.reasoningLevel = settings.reasoningLevel ?? profile.reasoningLevel
        var options = options
        if options.toolCallingMode == nil { options.toolCallingMode = profile.toolCallingMode }
        var working = original
        do {
            if let instructions = profile.instructions { working = working.leading(withInstructions: instructions.segments) }
            for transform in profile.historyTransforms { working.history = try transform.rewrite(working.history) }
            if let summarization = profile.summarization {
                working = try await summarize(working, summarization, driver: driver)
            }
            let promptEntry = Transcript.Prompt(segments: prompt.segments, options: options,
                                                responseFormat: schema.map { Transcript.ResponseFormat(schema: $0) })
            working.append(.prompt(promptEntry))
            let promptIndex = working.count - 1
            let contextOptions = ContextOptions(includeSchemaInPrompt: schema == nil ? nil : includeSchemaInPrompt,
                                                reasoningLevel: settings.reasoningLevel)
            let definitions = tools.map { Transcript.ToolDefinition(tool: $0) }
            try checkCapabilities(driver.capabilities, transcript: working, tools: definitions, schema: schema,
                                  contextOptions: contextOptions)
            if definitions.isEmpty, options.toolCallingMode?.kind == .required {
                throw LanguageModelError.requiredToolCallWithoutTools
            }
            commitLive(working)

            var toolCalls: [Transcript.ToolCall] = []
            var step = 0
            while true {
                if step >= settings.toolCallingStepLimit {
                    throw ToolLoopError.stepLimitExceeded(limit: settings.toolCallingStepLimit)
                }
                var stepOptions = options
                if step > 0, stepOptions.toolCallingMode?.kind == .required { stepOptions.toolCallingMode = .allowed }
                let request = LanguageModelExecutorGenerationRequest(
                    transcript: working, enabledTools: definitions, schema: schema, generationOptions: stepOptions,
                    contextOptions: contextOptions, metadata: settings.requestMetadata)
                let recorder = StepRecorder()
                let channel = LanguageModelExecutorGenerationChannel { event in
                    let text: String? = recorder.assembler.withLock { assembler in
                        assembler.apply(event)
                        if case .response = event.kind.storage { return assembler.responseText }
                        return nil
                    }
                    if let text, let onText { onText(text) }
                }
                do {
                    try await driver.respond(to: request, channel: channel, store: executors)
                    // An executor may return quietly when cancelled; the turn must not pass
                    // off a half-generated answer as complete.
                    try Task.checkCancellation()
                } catch {
                    working.append(contentsOf: recorder.assembler.withLock { $0.entries })
                    throw TurnFailure(error: error, partial: working)
                }
                let stepEntries = recorder.assembler.withLock { $0.finalEntries() }
                working.append(contentsOf: stepEntries)
                commitLive(working)

                let calls = stepEntries.flatMap { entry -> [Transcript.ToolCall] in
                    if case .toolCalls(let t) = entry { return t.calls }
                    return []
                }
                toolCalls += calls
                // Text sent alongside tool calls ("Let me check…") does not end the turn: the
                // tools run and the model is asked again. Without tools to run (none
                // registered, or calling disallowed) the calls are returned as they are.
                if calls.isEmpty || tools.isEmpty || stepOptions.toolCallingMode?.kind == .disallowed {
                    let text = recorder.assembler.withLock { $0.responseText }
                    let usage = stepEntries.reversed().lazy.compactMap { entry -> Transcript.Usage? in
                        if case .response(let r) = entry { return r.usage }
                        return nil
                    }.first
                    let result = try finish(TurnOutput(text: text, entries: working.entries[promptIndex...],
                                                       toolCalls: toolCalls, usage: usage))
                    try finishTurn(working)
                    return result
                }
                do {
                    let outputs = try await runTools(calls, timeout: settings.toolCallTimeout)
                    working.append(contentsOf: outputs.map { .toolOutput($0) })
                } catch {
                    throw TurnFailure(error: error, partial: working)
                }
                commitLive(working)
                step += 1
            }
        } catch let failure as TurnFailure {
            failTurn(original: original, partial: failure.partial, profilePolicy: profile.transcriptErrorHandlingPolicy)
            throw failure.error
        } catch {
            failTurn(original: original, partial: working, profilePolicy: profile.transcriptErrorHandlingPolicy)
            throw error
        }
    }

    /// The capability gate: refuses, before the executor runs, anything the model did not declare.
    func checkCapabilities(_ capabilities: LanguageModelCapabilities, transcript: Transcript,
                           tools: [Transcript.ToolDefinition], schema: GenerationSchema?,
                           contextOptions: ContextOptions) throws {
        func refuse(_ capability: LanguageModelCapabilities.Capability, _ why: String) -> LanguageModelError {
            .unsupportedCapability(.init(capability: capability, debugDescription: why))
        }
        if !tools.isEmpty, !capabilities.contains(.toolCalling) {
            throw refuse(.toolCalling, "The session has tools, but the model does not declare .toolCalling.")
        }
        if schema != nil, !capabilities.contains(.guidedGeneration) {
            throw refuse(.guidedGeneration, "Structured output was requested, but the model does not declare .guidedGeneration.")
        }
        if contextOptions.reasoningLevel != nil, !capabilities.contains(.reasoning) {
            throw refuse(.reasoning, "A reasoning level was requested, but the model does not declare .reasoning.")
        }
        if !capabilities.contains(.vision) {
            for entry in transcript {
                let segments: [Transcript.Segment]
                switch entry {
                case .instructions(let e): segments = e.segments
                case .prompt(let e): segments = e.segments
                case .toolOutput(let e): segments = e.segments
                case .response, .reasoning, .toolCalls: segments = []
                }
                if segments.contains(where: { if case .attachment = $0 { return true }; return false }) {
                    throw refuse(.vision, "The transcript contains an image, but the model does not declare .vision.")
                }
            }
        }
    }

    /// Publishes the turn's progress unless the app replaced the transcript meanwhile.
    private func commitLive(_ working: Transcript) {
        state.withLock { if !$0.mutatedWhileResponding { $0.transcript = working } }
    }

    private func finishTurn(_ working: Transcript) throws {
        try state.withLock { state in
            // Left for `failTurn` (via the thrown error) to settle, keeping the app's edit.
            if state.mutatedWhileResponding { throw Error.transcriptMutationWhileResponding }
            state.isResponding = false
            state.transcript = working
        }
    }

    /// Settles a failed turn under the session's policy as it stands now, else the profile's.
    private func failTurn(original: Transcript, partial: Transcript, profilePolicy: TranscriptErrorHandlingPolicy?) {
        state.withLock { state in
            state.isResponding = false
            if state.mutatedWhileResponding {
                // The app's own edit wins over both the revert and the partial output.
                state.mutatedWhileResponding = false
                return
            }
            state.transcript = (state.policy ?? profilePolicy) == .preserveTranscript ? partial : original
        }
    }

    /// Runs every call of one step concurrently; outputs keep the calls' order. With a
    /// `timeout`, each call is bounded by it (see `toolCallTimeout`).
    func runTools(_ calls: [Transcript.ToolCall], timeout: Duration? = nil) async throws -> [Transcript.ToolOutput] {
        try await withThrowingTaskGroup(of: (Int, Transcript.ToolOutput).self) { group in
            for (index, call) in calls.enumerated() {
                guard let tool = tools.first(where: { $0.name == call.toolName }) else {
                    throw ToolLoopError.unknownTool(name: call.toolName)
                }
                group.addTask {
                    do {
                        let segments: [Transcript.Segment]
                        if let timeout {
                            segments = try await Self.invoke(tool, arguments: call.arguments, within: timeout)
                        } else {
                            segments = try await Self.invoke(tool, arguments: call.arguments)
                        }
                        return (index, Transcript.ToolOutput(id: call.id, toolName: call.toolName, segments: segments))
                    } catch let error as CancellationError {
                        throw error
                    } catch {
                        throw ToolCallError(tool: tool, underlyingError: error)
                    }
                }
            }
            var outputs = [Transcript.ToolOutput?](repeating: nil, count: calls.count)
            for try await (index, output) in group { outputs[index] = output }
            return outputs.compactMap { $0 }
        }
    }

    private static func invoke<T: Tool>(_ tool: T, arguments: GeneratedContent) async throws -> [Transcript.Segment] {
        let parsed = try T.Arguments(arguments)
        let output = try await tool.call(arguments: parsed)
        if !(output is String), let structured = output as? any ConvertibleToGeneratedContent {
            return [.structure(Transcript.StructuredSegment(source: tool.name, content: structured.generatedContent))]
        }
        return output.promptRepresentation.segments
    }
}

extension LanguageModelSession {
    /// Runs one tool call in a task of its own, racing `timeout`. The caller waits on a one-shot
    /// outcome rather than on the task, so neither the deadline nor the caller's cancellation
    /// waits for a tool that ignores cancellation; the tool's task is cancelled either way.
    fileprivate static func invoke<T: Tool>(_ tool: T, arguments: GeneratedContent,
                                            within timeout: Duration) async throws -> [Transcript.Segment] {
        let outcome = ToolCallOutcome()
        let work = Task {
            do { outcome.settle(.success(try await invoke(tool, arguments: arguments))) } catch { outcome.settle(.failure(error)) }
        }
        let name = tool.name
        let timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return }
            outcome.settle(.failure(ToolLoopError.toolCallTimedOut(name: name, timeout: timeout)))
        }
        defer {
            timer.cancel()
            work.cancel()
        }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
        }
    }
}

/// The first result of a tool call, its deadline or its caller's cancellation; later ones are dropped.
private final class ToolCallOutcome: Sendable {
    private struct State {
        var result: Result<[Transcript.Segment], any Error>?
        var waiter: CheckedContinuation<[Transcript.Segment], any Error>?
    }
    private let state = Locked(State())

    func settle(_ result: Result<[Transcript.Segment], any Error>) {
        let waiter = state.withLock { s -> CheckedContinuation<[Transcript.Segment], any Error>? in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> [Transcript.Segment] {
        try await withCheckedThrowingContinuation { c in
            let ready = state.withLock { s -> Result<[Transcript.Segment], any Error>? in
                if let r = s.result { return r }
                s.waiter = c
                return nil
            }
            if let ready { c.resume(with: ready) }
        }
    }
}

/// An error together with the transcript as it stood when it happened (for `.preserveTranscript`).
struct TurnFailure: Error {
    let error: any Error
    let partial: Transcript
}
