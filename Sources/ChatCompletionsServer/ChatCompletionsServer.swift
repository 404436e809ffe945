// ChatCompletionsServer: any `LanguageModel` served as OpenAI-compatible Chat Completions — the
// HTTP mapping behind `loom serve`, in its own target so apps that only run models locally never
// link it.
//
// - `ChatCompletionsService` — the routes (`/v1/chat/completions`, `/v1/models`, `/health`) for
//   one model, mounted on an `HTTPServer` router.
// - `ChatCompletionsRequest` — a request body validated and translated into a transcript,
//   options, tools and schema; anything the model cannot honour is a 400, never dropped.
// - `ChatCompletionAssembler` — executor events → content, reasoning, tool calls, usage, deltas.
// - `ChatCompletionsWireFormat` — the response JSON; `ChatCompletionsServiceError` — the error
//   envelope (also for the HTTP server's own refusals) and the `LanguageModelError` → HTTP status
//   table; `BearerKeyAuthorization` — the API key.

/// Namespace marker for the module (see the file comment for its parts).
public enum ChatCompletionsServerModule {}
