import Foundation
import Testing
@testable import Provider

@Suite struct TranscriptTests {
    static func sample() throws -> Transcript {
        let parameters = try GenerationSchema(jsonSchema: #"{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}}}"#)
        var response = Transcript.Response(id: "r", segments: [
            .text(.init(id: "t1", content: "Hello")),
            .structure(.init(id: "s1", source: "Itinerary", content: try GeneratedContent(json: #"{"z":1,"a":2}"#))),
            .attachment(.init(id: "img", content: .image(.init(url: URL(string: "file:///tmp/x.png")!)), label: "diagram")),
        ])
        response.metadata = ["modelID": GeneratedContent(jsonValue: "m")]
        response.usage = Transcript.Usage(input: .init(totalTokenCount: 10, cachedTokenCount: 2),
                                          output: .init(totalTokenCount: 5, reasoningTokenCount: 1))
        var calls = Transcript.ToolCalls(id: "tc", [
            Transcript.ToolCall(id: "c1", toolName: "weather", arguments: try GeneratedContent(json: #"{"z":"Paris","a":1}"#)),
        ])
        calls.metadata = ["k": GeneratedContent(jsonValue: 1)]
        return Transcript(entries: [
            .instructions(.init(id: "i", segments: [.text(.init(content: "Be nice"))],
                                toolDefinitions: [.init(name: "weather", description: "Weather", parameters: parameters)])),
            .prompt(.init(id: "p", segments: [.text(.init(content: "Hi"))],
                          options: GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: 3), temperature: 0.7,
                                                     maximumResponseTokens: 100, toolCallingMode: .required),
                          responseFormat: .init(schema: parameters))),
            .reasoning(.init(id: "k", segments: [.text(.init(content: "hmm"))], signature: Data([0, 255, 7]))),
            .toolCalls(calls),
            .toolOutput(.init(id: "c1", toolName: "weather", segments: [.text(.init(content: "Sunny"))])),
            .response(response),
        ])
    }

    @Test func `transcripts round-trip through Codable losslessly`() throws {
        let transcript = try Self.sample()
        let data = try JSONEncoder().encode(transcript)
        let decoded = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(decoded == transcript)
        // Member order of tool arguments and schemas survives (they travel as JSON text).
        #expect(decoded[3].toolCallsValue?.calls.first?.arguments.jsonString == #"{"z":"Paris","a":1}"#)
        let instructions = try #require(decoded[0].instructionsValue)
        #expect(instructions.toolDefinitions.first?.parameters.jsonString ==
                #"{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}}}"#)
        #expect(decoded[2].reasoningValue?.signature == Data([0, 255, 7]))
        #expect(decoded.map(\.id) == transcript.map(\.id))
    }

    @Test func `transcript is a mutable range-replaceable collection`() throws {
        var transcript = try Self.sample()
        #expect(transcript.count == 6)
        #expect(transcript.history.count == 5)
        transcript.history = transcript.history.suffix(1)
        #expect(transcript.map(\.kindName) == ["instructions", "response"])
        transcript[1] = .prompt(.init(segments: [.text(.init(content: "x"))]))
        transcript.append(contentsOf: [.response(.init(segments: []))])
        transcript.removeFirst()
        #expect(transcript.map(\.kindName) == ["prompt", "response"])
        #expect(transcript.history.count == 2, "without instructions the history is everything")
    }

    @Test func `prompt and instructions builders join text and keep images`() {
        let include = true
        let image = Transcript.ImageAttachment(URL(fileURLWithPath: "/a.png"))
        let prompt = Prompt {
            "Line one"
            if include { "Line two" }
            for i in 1...2 { "Item \(i)" }
            image
        }
        #expect(prompt.segments.count == 2)
        #expect(prompt.text == "Line one\nLine two\nItem 1\nItem 2")
        let instructions = Instructions {
            "Be brief."
            if !include { "Never shown" } else { "Cite sources." }
        }
        #expect(instructions.text == "Be brief.\nCite sources.")
    }
}
