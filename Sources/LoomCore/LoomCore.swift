// LoomCore: Loom without its macros, for code that does not want to build SwiftSyntax (a tool,
// a server, a library of its own). The session framework (`Provider`: LanguageModelSession,
// Transcript, GenerationSchema, Tool, …) and the local backend (`LocalBackend`:
// LocalLanguageModel and its executor), re-exported together, with `LoomMetrics` (the registry a
// LocalLanguageModel records into):
//
//   import LoomCore
//   let session = LanguageModelSession(model: LocalLanguageModel(path: "models/default.gguf"))
//
// `Generable` types are written by hand here (or derived from `Codable`); the `Loom` product adds
// `@Generable` and `@Guide`. Apps that talk to a server instead add `ChatCompletions`; the
// engine, grammar and JSON modules stay available as their own products for code built from
// Loom's parts.
@_exported import LocalBackend
@_exported import LoomMetrics
@_exported import Provider
