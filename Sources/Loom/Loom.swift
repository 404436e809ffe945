// Loom: the one import an app needs. The session framework (`Provider`: LanguageModelSession,
// Transcript, GenerationSchema, Tool, …) and the local backend (`LocalBackend`:
// LocalLanguageModel and its executor), re-exported together, with `LoomMetrics` (the registry a
// LocalLanguageModel records into):
//
//   import Loom
//   let session = LanguageModelSession(model: LocalLanguageModel(path: "models/default.gguf"))
//
// Apps that talk to a server instead add `ChatCompletions`; the engine, grammar and JSON
// modules stay available as their own products for code built from Loom's parts.
@_exported import LocalBackend
@_exported import LoomMetrics
@_exported import Provider
