// Seed 001's three testing layers, run against the compiled samples.

import Foundation
import Testing
import Provider

@Suite(.serialized, .timeLimit(.minutes(2))) struct Seed001SampleTests {
  @Test func `system instructions become a system message`() throws {
    let transcript = Transcript(entries: [
      .instructions(
        Transcript.Instructions(
          segments: [.text(Transcript.TextSegment(content: "Be concise."))],
          toolDefinitions: []
        )
      ),
      .prompt(
        Transcript.Prompt(
          segments: [.text(Transcript.TextSegment(content: "Hello"))]
        )
      ),
    ])

    let body = try buildProviderRequest(from: transcript, modelID: "test-model")

    #expect(body.messages[0].role == "system")
    #expect(body.messages[0].text == "Be concise.")
    #expect(body.messages[1].role == "user")
  }

  @Test func `text delta becomes appendText event`() async throws {
    let sink = RecordingChannel()
    let translator = MyEventTranslator(
      responseEntryID: "r1",
      toolCallsEntryID: "t1",
      channel: sink
    )

    await translator.translate(.textDelta("Hi"))

    try #require(sink.events.count == 1)
    if case .response(let response) = sink.events[0].kind.storage {
      #expect(response.entryID == "r1")
    } else {
      Issue.record("not a response")
    }
  }

  @Test func `streamed text deltas assemble into a complete response`() async throws {
    StubbedTransport.shared.respond(
      with: [
        .textDelta("Hello"),
        .textDelta(", world!"),
        .done,
      ]
    )

    let model = MyLanguageModel(name: "test-model", apiKey: "sk-test", baseURL: .testBase)
    let session = LanguageModelSession(model: model)
    let response = try await session.respond(to: "anything")

    #expect(response.content == "Hello, world!")
  }

  @Test func `the sample executor's full event vocabulary assembles`() async throws {
    let retracted = Transcript.ToolCall(id: "x", toolName: "f", arguments: GeneratedContent(jsonValue: .null))
    StubbedTransport.shared.respond(with: [
      .reasoningDelta("Think "), .reasoningDelta("hard."), .reasoningSignature(Data([9, 8])),
      .toolCallStart(id: "x", name: "f"), .toolCallArgsDelta(id: "x", name: "f", args: "{}"), .toolCallRetracted(retracted),
      .textDelta("Answer"), .usage(prompt: 12, cached: 4, completion: 3, reasoning: 2), .done,
    ])
    let model = MyLanguageModel(name: "m", apiKey: "k", baseURL: .testBase)
    try await model.authenticateIfNeeded()
    let session = LanguageModelSession(model: model)
    let response = try await session.respond(to: "q")
    #expect(response.content == "Answer")
    #expect(response.usage?.input.cachedTokenCount == 4)
    #expect(response.usage?.output.totalTokenCount == 3)
    let reasoning = try #require(session.transcript[1].reasoningValue, "no reasoning")
    #expect(reasoning.signature == Data([9, 8]))
    #expect(session.transcript.count == 3, "the retracted call leaves no tool-calls entry")
  }

  @Test func `request inspection and error samples behave`() throws {
    var request = LanguageModelExecutorGenerationRequest(transcript: Transcript(), enabledTools: [])
    request.generationOptions = GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: 1))
    let body = seedSampleInspectSamplingMode(request)
    #expect(body.topP == 0.9 && body.seed == 1)
    #expect(try seedSampleRequestFields(request).count >= 4)
    for which in 0..<8 {
      #expect(throws: LanguageModelError.self) { try seedSampleThrow(which, offendingEntries: []) }
    }
    #expect(MyServiceError.planLimitReached(upgradeURL: nil).errorDescription == "Your plan limit has been reached.")
    #expect(seedSampleCapabilityCheck(MyLanguageModel(name: "m", baseURL: .testBase).capabilities) == [.toolCalling, .vision, .reasoning])
    #expect(LanguageModelCapabilities(capabilities: [.vision]).contains(.vision))
  }
}
