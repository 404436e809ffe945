import GenerableMacros
import LocalBackend
import Provider
import Testing

/// A `@Generable` type streamed from the default model under guided generation: each snapshot's
/// fields are read typed (`partial.field`), as app code written for Foundation Models does.
@Suite(.serialized, .timeLimit(.minutes(30))) struct GenerableStreamingTests {
    @Generable(description: "A city and what to see there")
    struct CityCard {
        @Guide(description: "The city's name")
        var name: String
        @Guide(description: "Population in millions", .range(0...40))
        var population: Int
        @Guide(description: "Famous landmarks", .count(2))
        var landmarks: [String]
        var weather: Weather
    }

    @Generable
    enum Weather { case sunny, rainy, cloudy }

    @Test func partialFieldsArriveTypedAndTheFinalValueFollowsTheGuides() async throws {
        let session = LanguageModelSession(model: E2EData.smol(), instructions: "You describe cities.")
        let stream = session.streamResponse(
            to: "Describe Paris.", generating: CityCard.self,
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 160))
        var names: [String] = []
        var sawPopulationBeforeLandmarks = false
        var landmarkCounts: [Int] = []
        for try await snapshot in stream {
            let partial: CityCard.PartiallyGenerated = snapshot.content
            if let name = partial.name { names.append(name) }
            if partial.population != nil, partial.landmarks == nil { sawPopulationBeforeLandmarks = true }
            if let landmarks = partial.landmarks { landmarkCounts.append(landmarks.count) }
        }
        // The name grew over several snapshots, each extending the one before.
        #expect(Set(names).count >= 2)
        for (a, b) in zip(names, names.dropFirst()) { #expect(b.hasPrefix(a)) }
        // Properties arrive in declaration order; the array grows element by element.
        #expect(sawPopulationBeforeLandmarks)
        #expect(landmarkCounts == landmarkCounts.sorted())
        let card = try await stream.collect().content
        #expect(card.name == names.last)
        #expect((0...40).contains(card.population))
        #expect(card.landmarks.count == 2)
    }
}
