// ChatCompletions: OpenAI-compatible servers behind LanguageModelSession, streaming incrementally on Linux.
