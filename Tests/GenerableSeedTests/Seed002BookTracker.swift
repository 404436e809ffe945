// Seed 002 (`../shared/seeds/002_5bea5e8d56ee856f.txt`), §10.3 "The contradiction, presented with
// both sides", Side B: Apple's Book Tracker sample (BookTaggingService.swift:13-45), as the seed
// quotes it, with `import FoundationModels` replaced by `import Loom`. The seed's excerpt ends
// inside the struct and does not show `tagsPrompt(review:)`; both are completed below the
// quoted lines, marked.
import Loom

@Generable
struct BookTags: Codable, Equatable {
    @Guide(description: "Descriptive tags capturing themes, genres, moods, and topics from the review", .count(3...8))
    var tags: [String]
}

struct BookTaggingService {
    static let instructions = """
        You are a librarian and literary analyst. …
        """

    static func generateTags(for review: String) async throws -> BookTags {
        let prompt = tagsPrompt(review: review)
        let session = LanguageModelSession(
            model: SystemLanguageModel(guardrails: .permissiveContentTransformations),
            instructions: instructions
        )
        let response = try await session.respond(to: prompt, generating: BookTags.self)
        return response.content
    }

    // Not in the seed's excerpt: the prompt builder the sample calls.
    static func tagsPrompt(review: String) -> String { "Tag this review:\n\(review)" }
}
