// The JSON Schema compiler on arbitrary text, then a checked walk of whatever it compiles.
//
// Properties: compiling never traps (a schema Loom cannot enforce is a typed `GrammarError`);
// a compiled grammar's matcher is self-consistent (see CheckedMatcher).
import FuzzGrammarSupport
import FuzzSupport
import Grammar

#if canImport(Glibc)
import Glibc
#endif

/// Inputs nested deeper than this are skipped (`LOOM_FUZZ_MAX_NESTING`, 0 = no cap): the
/// compiler recurses per nesting level, so deep inputs measure the stack, not the compiler.
let maximumNesting = getenv("LOOM_FUZZ_MAX_NESTING").flatMap { Int(String(cString: $0)) } ?? 0

FuzzEntry.run { bytes in
    if maximumNesting > 0 && bracketDepth(bytes) > maximumNesting { return }
    let text = String(decoding: bytes, as: UTF8.self)
    let grammar: Grammar
    do throws(GrammarError) {
        grammar = try Grammar(jsonSchema: text)
    } catch {
        if error.kind == .unsupported, let lenient = try? Grammar(jsonSchema: text, options: JSONSchemaOptions(lenient: true)) {
            CheckedMatcher.walk(lenient, seed: fuzzHash(bytes), count: 4)
        }
        return
    }
    CheckedMatcher.walk(grammar, seed: fuzzHash(bytes), count: 8)
}
