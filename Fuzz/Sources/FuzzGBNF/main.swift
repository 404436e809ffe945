// The GBNF parser on arbitrary text, then a checked walk of whatever it compiles.
//
// Properties: parsing never traps (bad grammars, left recursion and undefined rules are typed
// `GrammarError`s); a compiled grammar's matcher is self-consistent (see CheckedMatcher).
import FuzzGrammarSupport
import FuzzSupport
import Grammar

#if canImport(Glibc)
import Glibc
#endif

/// Inputs nested deeper than this are skipped (`LOOM_FUZZ_MAX_NESTING`, 0 = no cap).
let maximumNesting = getenv("LOOM_FUZZ_MAX_NESTING").flatMap { Int(String(cString: $0)) } ?? 0

FuzzEntry.run { bytes in
    if maximumNesting > 0 && bracketDepth(bytes) > maximumNesting { return }
    guard let grammar = try? Grammar(gbnf: String(decoding: bytes, as: UTF8.self)) else { return }
    CheckedMatcher.walk(grammar, seed: fuzzHash(bytes), count: 8)
}
