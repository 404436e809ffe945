import ExampleSupport
import Foundation
import Loom

// Structured extraction into a Codable type. The session derives a JSON Schema from the type
// (`GenerationSchema(deriving:)`); the local model generates under that schema's grammar, so the
// JSON always decodes into `Contact` — no retries, no repair.
//
//   swift run --package-path Examples -c release StructuredExtraction [model.gguf]

struct Contact: Codable, Sendable {
    enum Role: String, Codable, CaseIterable, Sendable { case engineer, manager, designer, other }

    var name: String
    var email: String
    var company: String
    var role: Role
    var phone: String?
}

let text = """
    Hi, I'm Maria Lopez, an engineer at Acme Robotics. You can reach me at maria.lopez@acme.example \
    or on +1 555 0100 after 9am.
    """

let model = LocalLanguageModel(path: exampleModelPath())
let session = LanguageModelSession(
    model: model, instructions: "Extract the contact details of the person who wrote the text. Copy names, e-mail addresses and phone numbers exactly as written.")
print("schema: \(try GenerationSchema(deriving: Contact.self).jsonString)")
let response = try await session.respond(to: text, generating: Contact.self,
                                         options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120))
let contact = response.content
print("name: \(contact.name)")
print("email: \(contact.email)")
print("company: \(contact.company)")
print("role: \(contact.role.rawValue)")
print("phone: \(contact.phone ?? "-")")
print("raw JSON: \(response.rawContent.jsonString)")
printStatus(performanceLine("structured extraction", response.transcriptEntries))
