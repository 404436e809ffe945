import Foundation
@testable import Grammar
import Testing

/// The default run's bounded share of fuzzing (the long campaigns are `scripts/fuzz`): a fixed,
/// seeded stream of mutations of real schemas, GBNF grammars and regexes. Every mutant must
/// compile or fail with a `GrammarError`; every compiled one must give a mask without trapping
/// and agree with `isAllowed` on it. Same seed, same mutants: a failure here replays exactly.
@Suite struct MutationRegressionTests {
    /// SplitMix64: a tiny, seedable generator, so the mutants do not depend on the platform's RNG.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let interesting = Array("{}[]\":,\\*+?|()^$.-0123456789eE \n\t\u{0}é".utf8) + [0x80, 0xFF, 0xC3]

    static func mutate(_ seed: [UInt8], _ rng: inout SplitMix, corpus: [[UInt8]]) -> [UInt8] {
        var b = seed
        for _ in 0...Int.random(in: 0...3, using: &rng) {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0 where !b.isEmpty: b[Int.random(in: 0..<b.count, using: &rng)] = interesting.randomElement(using: &rng)!
            case 1: b.insert(interesting.randomElement(using: &rng)!, at: Int.random(in: 0...b.count, using: &rng))
            case 2 where !b.isEmpty:
                let start = Int.random(in: 0..<b.count, using: &rng)
                b.removeSubrange(start..<min(b.count, start + Int.random(in: 1...8, using: &rng)))
            case 3 where !b.isEmpty:
                let start = Int.random(in: 0..<b.count, using: &rng)
                let end = min(b.count, start + Int.random(in: 1...24, using: &rng))
                b.insert(contentsOf: b[start..<end], at: Int.random(in: 0...b.count, using: &rng))
            default:
                let other = corpus.randomElement(using: &rng)!
                if !other.isEmpty {
                    let start = Int.random(in: 0..<other.count, using: &rng)
                    let end = min(other.count, start + Int.random(in: 1...32, using: &rng))
                    b.insert(contentsOf: other[start..<end], at: Int.random(in: 0...b.count, using: &rng))
                }
            }
        }
        return b
    }

    static let vocabulary = GrammarVocabulary(tokens: (0..<256).map { [UInt8($0)] } + ["{\"", "\":", "true", "null", "ab"].map { Array($0.utf8) } + [[]],
                                       endOfGeneration: [261])

    /// Compiles every mutant; checks the first mask of those that compile against `isAllowed`.
    static func run(_ seeds: [String], count: Int, seed: UInt64, _ compile: (String) throws(GrammarError) -> Grammar) -> (compiled: Int, rejected: Int) {
        var rng = SplitMix(state: seed)
        let corpus = seeds.map { Array($0.utf8) }
        var compiled = 0, rejected = 0
        for _ in 0..<count {
            let input = String(decoding: mutate(corpus.randomElement(using: &rng)!, &rng, corpus: corpus), as: UTF8.self)
            let grammar: Grammar
            do throws(GrammarError) { grammar = try compile(input) } catch { rejected += 1; continue }
            compiled += 1
            let m = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
            var mask = [UInt64](repeating: 0, count: m.maskWordCount)
            m.mask(into: &mask)
            for t in 0..<vocabulary.size {
                let bit = mask[t >> 6] >> UInt64(t & 63) & 1 == 1
                if bit != m.isAllowed(token: t) {
                    Issue.record("mask and isAllowed disagree on token \(t) for \(String(reflecting: input))")
                    break
                }
            }
        }
        return (compiled, rejected)
    }

    @Test func mutatedSchemas() throws {
        var seeds: [String] = []
        let lines = try SharedData.text("grammar/maskbench-dev.jsonl").split(separator: "\n")
        for line in lines.prefix(400) where line.count < 1500 {
            guard let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let schema = obj["schema"],
                  let data = try? JSONSerialization.data(withJSONObject: schema) else { continue }
            seeds.append(String(decoding: data, as: UTF8.self))
            if seeds.count == 40 { break }
        }
        #expect(seeds.count == 40)
        let r = Self.run(seeds, count: 400, seed: 9, { (s) throws(GrammarError) in try Grammar(jsonSchema: s) })
        #expect(r.compiled > 0 && r.rejected > 0)
    }

    @Test func mutatedGBNF() throws {
        let seeds = try ["arithmetic", "json", "list", "chess"].map { try SharedData.text("grammar/gbnf/\($0).gbnf") }
        let r = Self.run(seeds, count: 400, seed: 10, { (s) throws(GrammarError) in try Grammar(gbnf: s) })
        #expect(r.compiled > 0 && r.rejected > 0)
    }

    @Test func mutatedRegexes() {
        let seeds = [#"[a-z]+@[a-z]+\.(com|org)"#, #"^\d{3}-\d{4}$"#, "(ab|a)*b?c{2,5}", #"[^"\\]*"#, #"\p{L}+|[0-9]{1,3}(\.[0-9]+)?"#,
                     #"[\w\s-]{1,10}"#, "(((a|b)c)*d)+"]
        let r = Self.run(seeds, count: 600, seed: 11, { (s) throws(GrammarError) in try Grammar(regex: s) })
        #expect(r.compiled > 0 && r.rejected > 0)
    }

    // MARK: - Fuzz findings (`scripts/fuzz`, docs/reliability.md), replayed

    /// Nested bounded repetitions: a small NFA (90,000 states for the first pattern) whose subsets
    /// hold tens of thousands of NFA states each, so subset construction would take minutes
    /// before a DFA-state cap could stop it. A seed of the regex fuzz target; the answer is a
    /// `.limit` after a bounded amount of work, as a regex and as a schema `pattern`.
    @Test func nestedBoundedRepetitionsEndInLimit() {
        let expected = "regex needs more than \(100_000_000) steps to determinize"
        for pattern in [#"(\d{0,300}){0,300}"#] {
            do throws(GrammarError) {
                _ = try Grammar(regex: pattern)
                Issue.record("\(pattern) compiled")
            } catch {
                #expect(error == GrammarError(.limit, keyword: "regex", pointer: "", expected), "\(pattern)")
            }
            let schema = #"{"type":"string","pattern":"# + String(reflecting: pattern) + "}"
            do throws(GrammarError) {
                _ = try Grammar(jsonSchema: schema)
                Issue.record("\(schema) compiled")
            } catch {
                #expect(error == GrammarError(.limit, keyword: "pattern", pointer: "/pattern", expected), "\(schema)")
            }
        }
        // One schema's patterns share a total budget too, failed attempts included.
        var shared = 1_000
        do throws(GrammarError) {
            _ = try RegexCompiler.compile("(a|b)*a(a|b){8}", mode: .fullMatch, keyword: "pattern", pointer: "/p", sharedBudget: &shared)
            Issue.record("compiled within 1,000 shared steps")
        } catch {
            #expect(error == GrammarError(.limit, keyword: "pattern", pointer: "/p",
                                          "the schema's patterns need more than \(300_000_000) steps to determinize in all"))
        }
        #expect(shared == 0)
        shared = 10_000_000
        _ = try? RegexCompiler.compile("[a-z]+@[a-z]+", mode: .fullMatch, keyword: "pattern", pointer: "", sharedBudget: &shared)
        #expect(shared > 0 && shared < 10_000_000)
        // Bounded repetitions that real schemas use stay well inside the budget.
        for pattern in ["^.{1,256}$", #"^[/][/.\w-]{0,254}$"#, "(ab|a)*b?[^\\n]{0,3}"] {
            #expect(throws: Never.self) { try Grammar(regex: pattern) }
        }
    }

    /// GBNF's empty class `[]` compiles to a DFA with no states, so an automaton that indexed its
    /// start state would trap (index out of range) on any mask that reached it. A seed of the
    /// gbnf fuzz target, from a mutated chess grammar (`pawn ::= ([a-h] "x")? [] [1-8] …`). `[]`
    /// is the empty language: its branch is dead, the rest of the grammar is enforced as written.
    @Test func emptyCharacterClassIsTheEmptyLanguage() throws {
        let bytes = GrammarVocabulary(tokens: (0..<256).map { [UInt8($0)] } + [[]], endOfGeneration: [256])
        let g = try Grammar(gbnf: #"root ::= "x" ([] "z" | "y") "!""#)
        let m = GrammarMatcher(grammar: g, vocabulary: bytes)
        #expect(m.accept(bytes: Array("x".utf8)))
        var mask = [UInt64](repeating: 0, count: m.maskWordCount)
        m.mask(into: &mask)
        let allowed = (0..<257).filter { mask[$0 >> 6] >> UInt64($0 & 63) & 1 == 1 }
        #expect(allowed == [Int(UInt8(ascii: "y"))])
        #expect(m.accept(bytes: Array("y!".utf8)) && m.isComplete)

        // A grammar that is nothing but the empty class admits nothing (and does not trap).
        let empty = try Grammar(gbnf: "root ::= []")
        let e = GrammarMatcher(grammar: empty, vocabulary: bytes)
        var emptyMask = [UInt64](repeating: 0, count: e.maskWordCount)
        e.mask(into: &emptyMask)
        #expect(emptyMask.allSatisfy { $0 == 0 } && !e.isComplete)
    }

    /// MaskBench's Apache Thrift schema can overflow the stack: proving two `oneOf` branches
    /// disjoint compares their required properties' facts, collecting those compiles the
    /// properties' own `oneOf`s, and through the schema's recursive `$ref`s that never ends unless
    /// the depth is counted before the recursive call. A seed of the schema fuzz target. The
    /// answer is a grammar (its `not`/`oneOf` complements are exact) or a typed refusal, in
    /// strict and lenient mode alike — never a crash or a proof that runs forever.
    @Test func recursiveOneOfDisjointnessProofTerminates() throws {
        let lines = try SharedData.text("grammar/maskbench-dev.jsonl").split(separator: "\n")
        let line = try #require(lines.first { $0.contains("http://thrift.apache.org/program-schema#") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let schema = String(decoding: try JSONSerialization.data(withJSONObject: try #require(object["schema"])), as: UTF8.self)
        do throws(GrammarError) {
            _ = try Grammar(jsonSchema: schema)
        } catch {
            #expect(error.kind == .unsupported && !error.reason.isEmpty, "\(error)")
        }
        do throws(GrammarError) {
            _ = try Grammar(jsonSchema: schema, options: JSONSchemaOptions(lenient: true))
        } catch {
            #expect(!error.reason.isEmpty)
        }
    }
}
