import Engine
import Grammar
import LoomJSON

/// What guided tg needs: the schema's grammar over the model's vocabulary, a sequential engine
/// and a prompt.
struct GuidedSetup {
    let engine: SequentialEngine
    let matcher: GrammarMatcher
    let prompt: [Int32]

    init(schemaPath: String, model: Model, tokenizer: Tokenizer?, threads: Int, kv: KVCacheType, tokens: Int) throws {
        guard let tokenizer else { throw RuntimeError("--schema needs the model's tokenizer") }
        let schema = try JSONValue(parsing: FileInput.text(schemaPath))
        let grammar = try Grammar(jsonSchema: schema, options: JSONSchemaOptions())
        matcher = GrammarMatcher(grammar: grammar, vocabulary: GrammarVocabulary(tokenizer: tokenizer))
        prompt = tokenizer.encode("Answer with one JSON object.\n", addBOS: true)
        engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(
            threads: threads, maxBatch: 64, contextLength: prompt.count + tokens + 1, kvCacheType: kv))
    }
}
