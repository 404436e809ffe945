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

let model = MiniLocalModel(path: exampleModelPath())
let session = LanguageModelSession(model: model, instructions: "You are a concise assistant.")

var printed = 0
let stream = session.streamResponse(to: "Name three colours of the rainbow.",
                                    options: GenerationOptions(maximumResponseTokens: 60))
for try await snapshot in stream {
    writeStreamed(snapshot.content.dropFirst(printed))
    printed = snapshot.content.count
}
print()
let answer = try await stream.collect()
printStatus(performanceLine("custom model, streamed text", answer.transcriptEntries))

let city = try await session.respond(to: "Describe Paris.", generating: City.self,
                                    options: GenerationOptions(maximumResponseTokens: 120))
print("\(city.content.name), \(city.content.country): population \(city.content.population)")
printStatus(performanceLine("custom model, structured", city.transcriptEntries))
