import Foundation
import Engine
import LocalBackend
import Provider
import Testing

/// Free-text generation through `LanguageModelSession` and `LocalLanguageModel` on real models.
@Suite(.serialized, .timeLimit(.minutes(30))) struct LocalChatTests {
    static let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24)

    @Test func plainChatAnswers() async throws {
        let session = LanguageModelSession(model: E2EData.smol(), instructions: "You are terse.")
        let response = try await session.respond(to: "Name three primes.", options: Self.greedy)
        #expect(!response.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        let usage = try #require(response.usage)
        #expect(usage.input.totalTokenCount > 10)
        #expect(usage.output.totalTokenCount > 0 && usage.output.totalTokenCount <= 24)
        let metadata = response.responseMetadata
        #expect(metadata["modelID"]?.jsonValue == .string("default"))
        #expect(metadata["variant"]?.jsonValue == .string("sequential"))
        #expect(metadata["requestID"] != nil)
        #expect(metadata["tokensPerSecond"] != nil && metadata["timeToFirstToken"] != nil)
        #expect(metadata["cachedTokenCount"] != nil)
    }

    @Test func streamingArrivesIncrementally() async throws {
        let session = LanguageModelSession(model: E2EData.smol(.automatic))
        let stream = session.streamResponse(to: "Write one sentence about the sea.", options: Self.greedy)
        var snapshots: [String] = []
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        #expect(snapshots.count >= 3)
        for (a, b) in zip(snapshots, snapshots.dropFirst()) { #expect(b.hasPrefix(a)) }
        let response = try await stream.collect()
        #expect(response.content == snapshots.last)
        #expect(response.responseMetadata["variant"]?.jsonValue == .string("pipelined"))
    }

    @Test func executorDeltasCarryRealTokenCounts() async throws {
        let executor = try LocalLanguageModel.Executor(configuration: E2EData.smol().executorConfiguration)
        let log = EventLog()
        let request = LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Count from one to five."))]))]),
            generationOptions: Self.greedy)
        try await executor.respond(to: request, model: E2EData.smol(), streamingInto: log.channel)
        let (input, output) = try #require(log.usage)
        #expect(log.texts.count > 1)
        #expect(log.textTokenCounts.reduce(0, +) == output.totalTokenCount)
        #expect(input.totalTokenCount > 0)
    }

    @Test func secondTurnReusesTheCache() async throws {
        let session = LanguageModelSession(model: E2EData.smol(), instructions: "You are a helpful assistant who answers briefly.")
        let first = try await session.respond(to: "What is the capital of France?", options: Self.greedy)
        let second = try await session.respond(to: "And of Italy?", options: Self.greedy)
        let firstInput = try #require(first.usage?.input)
        let secondInput = try #require(second.usage?.input)
        #expect(secondInput.cachedTokenCount > firstInput.totalTokenCount / 2)
        #expect(secondInput.totalTokenCount > firstInput.totalTokenCount)
        #expect(second.localMetadata.cachedTokenCount == secondInput.cachedTokenCount)
    }

    @Test func templatelessModelUsesPlainFormat() async throws {
        let model = LocalLanguageModel(path: SharedData.stories, variant: .sequential, contextSize: 256)
        let session = LanguageModelSession(model: model, instructions: "A story.")
        let response = try await session.respond(to: "Once upon a time", options: Self.greedy)
        #expect(!response.content.isEmpty)
        #expect(!response.content.contains("\nuser:"))
        // The prompt is the documented plain rendering, tokenized with BOS.
        let file = try GGUFFile(path: SharedData.stories)
        let tokenizer = try Tokenizer(gguf: file)
        let text = "system: A story.\nuser: Once upon a time\nassistant:"
        let expected = tokenizer.encode(text, addBOS: tokenizer.addBOSByDefault)
        #expect(response.usage?.input.totalTokenCount == expected.count)
    }

    @Test func contextOverflowIsRefusedBeforeCompute() async throws {
        let model = E2EData.smol(context: 64)
        let session = LanguageModelSession(model: model)
        let long = String(repeating: "All work and no play makes Jack a dull boy. ", count: 20)
        do {
            _ = try await session.respond(to: long, options: Self.greedy)
            Issue.record("expected contextSizeExceeded")
        } catch let error as LanguageModelSession.GenerationError {
            if case .exceededContextWindowSize = error {} else { Issue.record("unexpected \(error)") }
        } catch let LanguageModelError.contextSizeExceeded(payload) {
            #expect(payload.contextSize == 64 && payload.tokenCount > 64)
        }
    }

    @Test func cancellationStopsWithinATokenOrTwo() async throws {
        let model = E2EData.smol()
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        // The third streamed append cancels the task from inside the stream: a handshake at a
        // known token, whatever else the machine is running.
        let canceller = CancelAfterTexts(texts: 3)
        let log = canceller.log
        let request = LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Tell me a long story about a dragon."))]))]),
            generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 400))
        let task = Task { try await executor.respond(to: request, model: model, streamingInto: log.channel) }
        canceller.arm(task)
        await #expect(throws: CancellationError.self) { try await task.value }
        let atCancel = try #require(canceller.tokensAtCancel, "the story never streamed three appends")
        #expect(atCancel >= 3)
        #expect(log.textTokenCounts.reduce(0, +) <= atCancel + 2)
        // No final totals: the only usage sent is the one the entry opened with (nothing generated).
        #expect(log.usage?.1.totalTokenCount == 0)
        // The engine went back to the pool: the executor keeps working.
        let again = EventLog()
        try await executor.respond(to: LanguageModelExecutorGenerationRequest(
            transcript: request.transcript, generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4)),
            model: model, streamingInto: again.channel)
        #expect(again.usage != nil)
    }

    @Test func deadlineThrowsTimeout() async throws {
        var model = E2EData.smol()
        model.timeout = .milliseconds(1)
        let session = LanguageModelSession(model: model)
        do {
            _ = try await session.respond(to: "Tell me a long story.", options: GenerationOptions(maximumResponseTokens: 400))
            Issue.record("expected a timeout")
        } catch let error as LanguageModelSession.GenerationError {
            Issue.record("unexpected \(error)")
        } catch let LanguageModelError.timeout(payload) {
            #expect(!payload.debugDescription.isEmpty)
        }
    }

    @Test func badFilesFailWithModelLoadErrors() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loom-not-gguf-\(UUID().uuidString)").path
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let model = LocalLanguageModel(path: path)
        #expect {
            _ = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        } throws: { error in
            guard case LocalLanguageModelError.modelLoadFailed(let p, let reason)? = error as? LocalLanguageModelError else { return false }
            return p == path && reason == .badMagic(found: 0x2074_6f6e)
        }
    }

    @Test func everyBehaviouralFieldChangesTheConfiguration() {
        let base = E2EData.smol()
        var variants: [LocalLanguageModel] = [base]
        var m = base; m.variant = .pipelined; variants.append(m)
        m = base; m.contextSize = 512; variants.append(m)
        m = base; m.threads = 1; variants.append(m)
        m = base; m.kvCacheType = .f32; variants.append(m)
        m = base; m.sampling = SamplingDefaults(temperature: 0.2); variants.append(m)
        m = base; m.grammar.whitespace = true; variants.append(m)
        m = base; m.grammar.remoteDocuments = ["http://x/": .bool(true)]; variants.append(m)
        m = base; m.grammar.lenient = true; variants.append(m)
        m = base; m.grammar.schemaOrder = false; variants.append(m)
        m = base; m.grammar.closedObjects = true; variants.append(m)
        m = base; m.grammar.defaultDraft = .draft7; variants.append(m)
        m = base; m.grammar.canonicalForms = false; variants.append(m)
        m = base; m.kvCacheBudget = 1 << 30; variants.append(m)
        m = base; m.timeout = .seconds(5); variants.append(m)
        m = base; m.url = URL(fileURLWithPath: SharedData.stories); variants.append(m)
        let configurations = variants.map(\.executorConfiguration)
        #expect(Set(configurations).count == variants.count)
        #expect(E2EData.smol().executorConfiguration == base.executorConfiguration)
        #expect(base.executorConfiguration.fileSize > 0 && base.executorConfiguration.modificationTime > 0)
    }

    @Test func capabilitiesAreDetected() {
        #expect(E2EData.smol(.sequential).capabilities.contains(.guidedGeneration))
        #expect(E2EData.smol(.automatic).capabilities.contains(.toolCalling))
        #expect(!E2EData.smol(.pipelined).capabilities.contains(.guidedGeneration))
        for variant in LocalLanguageModel.Variant.allCases {
            #expect(!E2EData.smol(variant).capabilities.contains(.vision))
            // SmolLM2's vocabulary has no reasoning markers.
            #expect(!E2EData.smol(variant).capabilities.contains(.reasoning))
        }
    }
}
