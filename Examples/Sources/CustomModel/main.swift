import ExampleSupport
import Foundation
import Provider

// A custom LanguageModel behind the standard session API: a streamed answer, then a value of a
// Codable type whose JSON the grammar guarantees (docs/custom-models.md explains each piece).

struct City: Codable, Sendable {
    var name: String
    var country: String
    var population: Int
}

/// The decode rate the executor put in the response entry's metadata.
func tokensPerSecond(_ entries: some Collection<Transcript.Entry>) -> Double {
    for case .response(let response) in entries.reversed() {
        if case .number(let rate)? = response.metadata["tokensPerSecond"]?.jsonValue { return rate.doubleValue }
    }
    return 0
}

let model = MiniLocalModel(path: exampleModelPath())
let session = LanguageModelSession(model: model, instructions: "You are a concise assistant.")

var printed = 0
let stream = session.streamResponse(to: "Name three colours of the rainbow.")
for try await snapshot in stream {
    print(snapshot.content.dropFirst(printed), terminator: "")
    printed = snapshot.content.count
}
print()
let answer = try await stream.collect()
printStatus("custom model, text: \(answer.usage?.output.totalTokenCount ?? 0) tokens, "
    + String(format: "%.1f tok/s", tokensPerSecond(answer.transcriptEntries)))

let city = try await session.respond(to: "Describe Paris.", generating: City.self)
print("\(city.content.name), \(city.content.country): population \(city.content.population)")
printStatus("custom model, structured: \(city.usage?.output.totalTokenCount ?? 0) tokens, "
    + String(format: "%.1f tok/s", tokensPerSecond(city.transcriptEntries)))
