// Loom: the one import an app needs, as `import FoundationModels` is on Apple's platforms. The
// session framework (`Provider`: LanguageModelSession, Transcript, GenerationSchema, Tool, …), the
// local backend (`LocalBackend`: LocalLanguageModel and its executor) and `LoomMetrics`, through
// `LoomCore`, with the `@Generable` and `@Guide` macros (`GenerableMacros`):
//
//   import Loom
//
//   @Generable struct Forecast { @Guide(description: "In °C", .range(-50...50)) var celsius: Int }
//   let session = LanguageModelSession(model: LocalLanguageModel(path: "models/default.gguf"))
//   let forecast = try await session.respond(to: "Tomorrow in Oslo?", generating: Forecast.self)
//
// The macros run inside the compiler and build SwiftSyntax with the package; code that does not
// want that depends on the `LoomCore` product instead (the same API without the macros).
@_exported import GenerableMacros
@_exported import LoomCore
