/// Serves any `LanguageModel` over the OpenAI-compatible Chat Completions protocol (`loom serve`).
///
/// Module overview; the server types live in their own files.
public enum ChatCompletionsServerModule {}
