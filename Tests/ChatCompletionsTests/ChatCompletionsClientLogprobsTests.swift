import ChatCompletions
import Foundation
import LoomJSON
import Provider
import Testing

/// The client side of log-probabilities: the option becomes `logprobs`/`top_logprobs`, and the
/// server's `logprobs.content` comes back as `TokenLogProbability` entries in the response
/// entry's metadata, as a local model reports them.
@Suite struct ChatCompletionsClientLogprobsTests {
    func request(_ options: GenerationOptions) -> LanguageModelExecutorGenerationRequest {
        LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [.prompt(Transcript.Prompt(segments: [.text(.init(content: "hi"))]))]),
            generationOptions: options)
    }

    @Test func theOptionBecomesTheOpenAIFields() throws {
        let builder = ChatCompletionsRequestBuilder(modelName: "m")
        let body = try builder.body(for: request(GenerationOptions(logProbabilities: .init(alternatives: 4))))
        #expect(body["logprobs"] == .bool(true))
        #expect(body["top_logprobs"] == .number(JSONNumber(4)))
        let plain = try builder.body(for: request(GenerationOptions()))
        #expect(plain["logprobs"] == nil && plain["top_logprobs"] == nil)
        #expect(throws: ChatCompletionsError.self) {
            try builder.body(for: request(GenerationOptions(logProbabilities: .init(alternatives: 21))))
        }
    }

    static func chunk(_ text: String, logprob: Double) -> String {
        """
        {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"\(text)"},\
        "logprobs":{"content":[{"token":"\(text)","logprob":\(logprob),"bytes":[\(text.utf8.map(String.init).joined(separator: ","))],\
        "top_logprobs":[{"token":"\(text)","logprob":\(logprob),"bytes":null},{"token":"x","logprob":-3.5,"bytes":[120]}]}],\
        "refusal":null},"finish_reason":null}]}
        """
    }

    @Test func returnedLogprobsAreAnnouncedBeforeTheirTextAndListedAtTheEnd() throws {
        var translator = ChatCompletionsEventTranslator()
        var events = try translator.consume(data: Self.chunk("Hel", logprob: -0.25))
        events += try translator.consume(data: Self.chunk("lo", logprob: -1.5))
        events += try translator.finish()

        var announced: [[TokenLogProbability]] = []
        var texts: [String] = []
        var final: [TokenLogProbability]?
        for event in events {
            guard case .response(let r) = event.kind.storage else { continue }
            switch r.action {
            case .updateMetadata(let metadata):
                let entries = metadata[TokenLogProbability.metadataKey] as? [TokenLogProbability]
                if texts.count == 2 { final = entries } else { announced.append(entries ?? []) }
            case .appendText(let text, _, let tokens):
                texts.append(text)
                #expect(tokens == 1)
                #expect(announced.count == texts.count)
            default: break
            }
        }
        #expect(texts == ["Hel", "lo"])
        #expect(announced.map { $0.map(\.token) } == [["Hel"], ["lo"]])
        let first = try #require(announced.first?.first)
        #expect(first.logProbability == -0.25)
        #expect(first.bytes == Array("Hel".utf8))
        #expect(first.topAlternatives.map(\.token) == ["Hel", "x"])
        // A null `bytes` is taken from the token's text.
        #expect(first.topAlternatives[0].bytes == Array("Hel".utf8))
        #expect(final?.map(\.logProbability) == [-0.25, -1.5])
        #expect(translator.state.logProbabilities.count == 2)
    }

    @Test func theEntriesRoundTripThroughTheTranscriptsMetadata() throws {
        let entry = TokenLogProbability(token: "é", bytes: [0xC3, 0xA9], logProbability: -0.125,
                                        topAlternatives: [.init(token: "e", bytes: [0x65], logProbability: -2)])
        let json = entry.jsonValue
        #expect(json.objectValue?.keys == ["token", "logprob", "bytes", "top_logprobs"])
        #expect(TokenLogProbability(jsonValue: json) == entry)
        var response = Transcript.Response(id: "r", segments: [])
        response.metadata = [TokenLogProbability.metadataKey: [entry].generatedContent]
        #expect(response.logProbabilities == [entry])
        #expect(Transcript.Response(id: "r", segments: []).logProbabilities == nil)
    }
}
