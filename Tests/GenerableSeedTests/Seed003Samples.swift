// Seed 003 (`../shared/seeds/003_124d3155dc0ec090.txt`): its `@Generable` samples as the seed
// prints them, with the Apple-only imports (`FoundationModels`, `FoundationModelsUtilities`,
// `Observation`'s `@Observable`) replaced by Loom's. Section by section below.
import ChatCompletions
import Foundation
import Loom

// §2.5 "`supportsGuidedGeneration:` is a promise you are making for the server".
@Generable
struct StrictProbe {
    @Guide(description: "Exactly the integer 42, nothing else")
    var answer: Int
    @Guide(description: "Exactly the string 'ok'")
    var status: String
}

@available(iOS 27.0, macOS 27.0, *)
func probeGuidedGeneration(url: URL, name: String) async -> Bool {
    let model = ChatCompletionsLanguageModel(
        name: name, url: url, supportsGuidedGeneration: true)
    let session = LanguageModelSession(model: model)
    do {
        // Prompt the model toward prose. A strict server still returns the schema shape.
        let r = try await session.respond(
            to: "Write a haiku about the sea. Ignore any output format instructions.",
            generating: StrictProbe.self)
        return r.content.status == "ok" || r.content.answer == 42
    } catch {
        return false
    }
}

// §3.4 "The macro path: `#huggingFaceLanguageModel`" (mlx-swift-lm's README.md:104-141; the
// type only: the model macro is MLX's).
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
@Generable
struct Recommendation {
    let attraction: String
    let neighborhood: String
    let tip: String
}

// §9.1 "Store the model as one property" (the class the §9.2 extension extends; `@Observable`
// left out: Observation's macros are Apple's UI plumbing, not the session API).
@available(iOS 27.0, macOS 27.0, *)
final class Assistant {
    /// The one place the backend is chosen. Everything below is backend-agnostic.
    private(set) var model: any LanguageModel = SystemLanguageModel()

    /// Surfaced in UI so the user can see which backend is answering — §7.
    private(set) var backendDescription: String = "On this device"

    func use(_ newModel: any LanguageModel, describedAs description: String) {
        model = newModel
        backendDescription = description
    }
}

// §9.2 "Branch on capabilities, not on type".
@available(iOS 27.0, macOS 27.0, *)
extension Assistant {
    /// Extract structured data if the backend can guarantee the shape;
    /// otherwise fall back to prose and say so. See §5 for why this is necessary.
    func extractContact(from text: String) async throws -> ContactDraft? {
        guard model.capabilities.contains(.guidedGeneration) else {
            // Do NOT silently parse free text as if it were schema-conformant.
            return nil
        }
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(
            to: "Extract the contact details from:\n\(text)",
            generating: ContactDraft.self)
        return response.content
    }
}

@Generable
struct ContactDraft {
    @Guide(description: "Full name as written")
    var name: String
    @Guide(description: "Email address, or an empty string if none is present")
    var email: String
}
