import ExampleSupport
import Foundation
import Loom

// A tool-calling agent on a local model: the session's tool loop calls `getWeather`, then the
// model answers with the tool's output in its context.
//
//   swift run --package-path Examples -c release WeatherAgent [model.gguf] [question]

let question = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "What is the weather like in Paris today?"
let model = LocalLanguageModel(path: exampleModelPath())
let session = LanguageModelSession(
    model: model, tools: [GetWeather()],
    instructions: "You are a weather assistant. Use the getWeather tool to look up the weather, then answer in one sentence.")

// `.required` makes the first step a tool call (the grammar has no plain-text branch), so even
// a tiny model takes the tool path; greedy decoding keeps the run reproducible.
let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80, toolCallingMode: .required)
print("user: \(question)")
let response = try await session.respond(to: question, options: options)
if response.toolCalls.isEmpty {
    printStatus("(the model answered without calling getWeather)")
}
for call in response.toolCalls {
    print("tool call: \(call.toolName)(\(call.arguments.jsonString))")
}
for case .toolOutput(let output) in response.transcriptEntries {
    let text = output.segments.compactMap { segment -> String? in
        if case .text(let t) = segment { return t.content } else { return nil }
    }.joined()
    print("tool output: \(text)")
}
print("assistant: \(response.content)")
printStatus(performanceLine("weather agent", response.transcriptEntries))
