// `logprobs` / `top_logprobs` on /v1/chat/completions: the request mapping, OpenAI's 400s, and
// the wire shape of `choices[].logprobs` in plain and streamed answers.
import ChatCompletionsServer
import Foundation
import LoomJSON
import Provider
import Testing

@Suite(.timeLimit(.minutes(2))) struct ChatCompletionsLogprobsTests {
    func parse(_ body: JSONValue) throws(ChatCompletionsServiceError) -> ChatCompletionsRequest {
        try ChatCompletionsRequest(body: Array(body.serialized().utf8))
    }

    @Test func logprobsMapToTheGenerationOption() throws {
        #expect(try parse(chatBody("x", [("logprobs", true), ("top_logprobs", 5)])).generationOptions.logProbabilities
            == .init(alternatives: 5))
        #expect(try parse(chatBody("x", [("logprobs", true)])).generationOptions.logProbabilities == .init(alternatives: 0))
        #expect(try parse(chatBody("x", [("logprobs", true), ("top_logprobs", 20)])).generationOptions.logProbabilities
            == .init(alternatives: 20))
        #expect(try parse(chatBody("x", [("logprobs", false)])).generationOptions.logProbabilities == nil)
        #expect(try parse(chatBody("x")).generationOptions.logProbabilities == nil)
    }

    @Test(arguments: [
        ([("logprobs", true), ("top_logprobs", 21)], "integer_above_max_value"),
        ([("logprobs", true), ("top_logprobs", -1)], "integer_below_min_value"),
        ([("top_logprobs", 3)], "invalid_value"),
        ([("logprobs", false), ("top_logprobs", 3)], "invalid_value"),
    ] as [([(String, JSONValue)], String)])
    func outOfRangeOrOrphanTopLogprobsAreRefused(fields: [(String, JSONValue)], code: String) {
        #expect(throws: ChatCompletionsServiceError.self) { try parse(chatBody("x", fields)) }
        do {
            _ = try parse(chatBody("x", fields))
        } catch {
            #expect(error.status == 400)
            #expect(error.param == "top_logprobs")
            #expect(error.code == code)
            #expect(error.type == "invalid_request_error")
        }
    }

    @Test func outOfRangeIsA400WithOpenAIsErrorEnvelope() async throws {
        let served = try await ServedModel.start(script: [.loggedText("Hi")])
        let response = try await served.chat(chatBody("x", [("logprobs", true), ("top_logprobs", 25)]))
        #expect(response.status == 400)
        let error = try #require(response.json?["error"])
        #expect(error["param"] == "top_logprobs")
        #expect(error["code"] == "integer_above_max_value")
        #expect(error["type"] == "invalid_request_error")
        #expect(error["message"]?.stringValue?.contains("20") == true)
        #expect(served.requests.isEmpty)
        await served.stop()
    }

    /// Checks one `logprobs.content[]` element as the scripted model writes it.
    static func checkToken(_ item: JSONValue?, _ token: String, alternatives k: Int) throws {
        let item = try #require(item)
        let object = try #require(item.objectValue)
        #expect(object.keys == ["token", "logprob", "bytes", "top_logprobs"])
        #expect(item["token"] == .string(token))
        #expect(item["logprob"]?.doubleValue == -0.5)
        #expect(item["bytes"] == .array(token.utf8.map { .number(JSONNumber(Int($0))) }))
        let top = try #require(item["top_logprobs"]?.arrayValue)
        #expect(top.count == k)
        for (j, alternative) in top.enumerated() {
            #expect(alternative.objectValue?.keys == ["token", "logprob", "bytes"])
            #expect(alternative["token"] == .string("alt\(j)"))
            #expect(alternative["logprob"]?.doubleValue == -1 - Double(j))
        }
    }

    @Test(arguments: [0, 3, 20]) func nonStreamedChoiceCarriesEveryContentToken(k: Int) async throws {
        let served = try await ServedModel.start(script: [.loggedText("Hel"), .loggedText("lo")])
        let response = try await served.chat(chatBody("x", [("logprobs", true), ("top_logprobs", .number(JSONNumber(k)))]))
        #expect(response.status == 200)
        let choice = try #require(response.json?["choices"]?[0])
        #expect(choice["message"]?["content"] == "Hello")
        let logprobs = try #require(choice["logprobs"])
        #expect(logprobs.objectValue?.keys == ["content", "refusal"])
        #expect(logprobs["refusal"]?.isNull == true)
        let content = try #require(logprobs["content"]?.arrayValue)
        #expect(content.count == 2)
        try Self.checkToken(content[0], "Hel", alternatives: k)
        try Self.checkToken(content[1], "lo", alternatives: k)
        #expect(served.requests.first?.generationOptions.logProbabilities == .init(alternatives: k))
        await served.stop()
    }

    @Test func withoutTheFieldLogprobsStayNull() async throws {
        let served = try await ServedModel.start(script: [.loggedText("Hi")])
        let response = try await served.chat(chatBody("x"))
        #expect(response.json?["choices"]?[0]?["logprobs"]?.isNull == true)
        await served.stop()
    }

    @Test func eachStreamedContentChunkCarriesItsOwnTokens() async throws {
        let served = try await ServedModel.start(script: [.loggedText("Hel"), .loggedText("lo")])
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody("x", [
            ("stream", true), ("logprobs", true), ("top_logprobs", 2),
        ]))
        #expect(try await client.readHead().status == 200)
        let role = try await client.nextJSONEvent()
        #expect(role["choices"]?[0]?["delta"]?["role"] == "assistant")
        #expect(role["choices"]?[0]?["logprobs"]?.isNull == true)
        for text in ["Hel", "lo"] {
            let chunk = try await client.nextJSONEvent()
            #expect(chunk["choices"]?[0]?["delta"]?["content"] == .string(text))
            let logprobs = try #require(chunk["choices"]?[0]?["logprobs"])
            #expect(logprobs["refusal"]?.isNull == true)
            let content = try #require(logprobs["content"]?.arrayValue)
            #expect(content.count == 1)
            try Self.checkToken(content.first, text, alternatives: 2)
        }
        let finish = try await client.nextJSONEvent()
        #expect(finish["choices"]?[0]?["finish_reason"] == "stop")
        #expect(finish["choices"]?[0]?["logprobs"]?.isNull == true)
        #expect(try await client.nextEvent() == "[DONE]")
        await served.stop()
    }
}
