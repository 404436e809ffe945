// Provider: the Foundation Models session protocol surface for Linux. It knows no engine:
// `LocalLanguageModel` lives in LocalBackend, and the `Loom` umbrella re-exports both.
//
// App code written against Apple's Foundation Models 27.0 API compiles here with
// `import Loom` (or `import Provider` with a model of its own) in place of `import FoundationModels`:
//
//   let session = LanguageModelSession(model: model, tools: [WeatherTool()], instructions: "…")
//   let answer = try await session.respond(to: "…")
//   for try await partial in session.streamResponse(to: "…", generating: Itinerary.self) { … }
//
// A backend plugs in by conforming to `LanguageModel` (capabilities + a Hashable executor
// configuration) and `LanguageModelExecutor` (`respond(to:model:streamingInto:)`, sending
// deltas on a `LanguageModelExecutorGenerationChannel`). The session owns everything else:
// executor caching, the capability gate, transcript assembly, the tool loop, structured-output
// parsing, streaming, cancellation and error policy.
//
// Departures from Apple's framework: no macros (`Generable` is written by hand or derived
// from `Decodable`), images are URL-based, dynamic profiles are not implemented, and
// `Transcript.CustomSegment` (removed in beta 5) is absent.
@_exported import LoomJSON
