import Loom

// A trip planner written the way Apple's Foundation Models documentation writes one:
// `@Generable` types with `@Guide`s, a `DynamicProfile` that switches models mid-conversation,
// `tokenCount(for:)` checks against the context size before each request, and a structured
// response streamed field by field through its `PartiallyGenerated` form.
//
//   swift run --package-path Examples -c release TripPlanner [planner.gguf [packing.gguf]]

let arguments = CommandLine.arguments.dropFirst()
let plannerModel = LocalLanguageModel(path: arguments.first ?? "models/default.gguf")
let packingModel = arguments.dropFirst().first.map { LocalLanguageModel(path: $0) } ?? plannerModel

let session = LanguageModelSession(profile: TripProfile(
    stage: .planning,
    plannerModel: plannerModel,
    packingModel: packingModel))

/// Whether a request of `prompt`, answered as `type`, fits the model's context next to the
/// conversation so far, with `reply` tokens left for the answer.
func fits<Content: Generable>(_ prompt: String, generating type: Content.Type, reply: Int,
                              in model: LocalLanguageModel, session: LanguageModelSession) async throws -> Bool {
    let history = try await session.tokenCount(for: session.transcript)
    let request = try await session.tokenCount(for: prompt)
    let schema = try await session.tokenCount(for: Content.generationSchema)
    print("budget: \(history) history + \(request) prompt + \(schema) schema + \(reply) reply of \(model.contextSize)")
    return history + request + schema + reply <= model.contextSize
}

// 1. Plan the trip, watching the itinerary arrive.
let planPrompt = "Plan two days in Lisbon."
guard try await fits(planPrompt, generating: Itinerary.self, reply: 240, in: plannerModel, session: session) else {
    fatalError("The conversation no longer fits the planner's context.")
}
let stream = session.streamResponse(
    to: planPrompt, generating: Itinerary.self,
    options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 240))
var lastSeen = ""
for try await partial in stream {
    let itinerary = partial.content
    let progress = "title: \(itinerary.title ?? "…"), days: \(itinerary.days?.count ?? 0)"
        + ", first theme: \(itinerary.days?.first?.theme ?? "…")"
    if progress != lastSeen {
        lastSeen = progress
        print("partial: \(progress)")
    }
}
let itinerary = try await stream.collect().content
print("itinerary: \(itinerary.title) in \(itinerary.destination)")
for (number, day) in itinerary.days.enumerated() {
    print("  day \(number + 1): \(day.theme) (\(day.pace)) — \(day.activities.joined(separator: "; "))")
}

// 2. Switch to the packing model; the conversation so far comes along.
session.profile = TripProfile(stage: .packing, plannerModel: plannerModel, packingModel: packingModel)
let packPrompt = "What should I pack for this trip?"
guard try await fits(packPrompt, generating: PackingList.self, reply: 120, in: packingModel, session: session) else {
    fatalError("The conversation no longer fits the packing model's context.")
}
let packing = try await session.respond(
    to: packPrompt, generating: PackingList.self,
    options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120))
print("packing: \(packing.content.bags) bag(s): \(packing.content.items.joined(separator: ", "))")
print("transcript: \(session.transcript.count) entries across both models")
