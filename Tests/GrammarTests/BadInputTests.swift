import Grammar
import Testing

/// The bad-input table of docs/reliability.md, Grammar rows: schemas, GBNF and
/// regexes that cannot be enforced as written end in the exact `GrammarError` below (kind,
/// keyword, pointer, reason), and inputs that are legal but hostile compile to grammars that
/// enforce them exactly instead of crashing, hanging or loosening the constraint.
@Suite struct BadInputTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let source: String
        let kind: GrammarError.Kind
        let keyword: String
        let pointer: String
        let reason: String
        var testDescription: String { source }
        init(_ source: String, _ kind: GrammarError.Kind, _ keyword: String, _ pointer: String, _ reason: String) {
            (self.source, self.kind, self.keyword, self.pointer, self.reason) = (source, kind, keyword, pointer, reason)
        }
    }

    static func expectError(_ row: Row, _ compile: (String) throws(GrammarError) -> Grammar) {
        do throws(GrammarError) {
            _ = try compile(row.source)
            Issue.record("\(row.source) compiled; expected \(row.kind) error")
        } catch {
            #expect(error == GrammarError(row.kind, keyword: row.keyword, pointer: row.pointer, row.reason), "\(row.source)")
        }
    }

    static let schemaRows: [Row] = [
        // Unsupported keywords: reported with the keyword and where it is, never ignored.
        Row(#"{"type":"array","items":{"type":"object"},"uniqueItems":true}"#, .unsupported, "uniqueItems", "/uniqueItems",
            "uniqueItems is enforced only over finite item domains (enum, boolean)"),
        Row(#"{"type":"string","pattern":"(?=a)b"}"#, .unsupported, "pattern", "/pattern", "regex: lookaround or inline flags"),
        Row(#"{"anyOf":[{"properties":{"a":true}},{"if":{"required":["b"]},"then":{"properties":{"c":true}}}],"unevaluatedProperties":false}"#,
            .unsupported, "unevaluatedProperties", "/anyOf/1",
            "which anyOf branches hold decides what unevaluatedProperties reads, and branch 1 has no exact complement (the complement of if is not supported)"),
        // Malformed keyword values.
        Row(#"{"type":"foo"}"#, .syntax, "type", "/type", "unknown type 'foo'"),
        Row(#"{"type":"string","maxLength":-1}"#, .syntax, "maxLength", "/maxLength", "maxLength must be a non-negative integer"),
        Row(#"{"type":"string","maxLength":1.5}"#, .syntax, "maxLength", "/maxLength", "maxLength must be a non-negative integer"),
        Row(#"{"type":"number","multipleOf":0}"#, .syntax, "multipleOf", "/multipleOf", "multipleOf must be positive"),
        Row(#"{"properties":{"a":{"type":"string"}},"required":"a"}"#, .syntax, "required", "/required", "required must be an array of strings"),
        Row(#"{"type":"string""#, .syntax, "json", "", "invalid JSON at byte 16: unexpected end of input"),
        // References that go nowhere.
        Row(##"{"$ref":"#/$defs/missing"}"##, .unresolvedReference, "$ref", "/$ref", "'#/$defs/missing' does not resolve"),
        Row(#"{"$ref":"https://example.com/schema.json"}"#, .unresolvedReference, "$ref", "/$ref",
            "unknown document 'https://example.com/schema.json'"),
        Row(##"{"$dynamicRef":"#meta"}"##, .unresolvedReference, "$ref", "/$dynamicRef", "no anchor 'meta' in loom:/root.json"),
        // Patterns whose automaton would be enormous.
        Row(#"{"type":"string","pattern":"a{1000000000}"}"#, .limit, "pattern", "/pattern", "regex expands to too many states"),
        Row(#"{"type":"string","pattern":"(a|b)*a(a|b){40}"}"#, .limit, "pattern", "/pattern", "regex needs more than 20000 DFA states"),
        Row(#"{"type":"string","pattern":"(\\d{0,300}){0,300}"}"#, .limit, "pattern", "/pattern",
            "regex needs more than 100000000 steps to determinize"),
        // Branch combinations over a wide object: each of the 1,024 combinations refolds the
        // 300 properties, which the whole-compile work budget stops before it runs for long.
        Row(combinatorialSchema, .limit, "schema", "",
            "schema needs more than 250000 units of compilation work (combinations of anyOf/oneOf/if branches over large subschemas)"),
    ]

    /// Ten two-way `anyOf`s beside 300 properties.
    static let combinatorialSchema: String = {
        let props = (0..<300).map { #""p\#($0)":{"type":"integer"}"# }.joined(separator: ",")
        let groups = (0..<10).map { #"{"anyOf":[{"required":["p\#($0)"]},{"required":["q\#($0)"]}]}"# }.joined(separator: ",")
        return #"{"type":"object","properties":{\#(props)},"allOf":[\#(groups)]}"#
    }()

    @Test(arguments: schemaRows) func schemaErrors(_ row: Row) {
        Self.expectError(row) { (s) throws(GrammarError) in try Grammar(jsonSchema: s) }
    }

    static let gbnfRows: [Row] = [
        Row(#"root ::= root "a" | "b""#, .limit, "gbnf", "", "left recursion: a rule can reach itself without consuming input"),
        Row("root ::= a\na ::= b \"x\"\nb ::= root | \"y\"", .limit, "gbnf", "", "left recursion: a rule can reach itself without consuming input"),
        Row("root ::= x*\nx ::= \"\" | root", .limit, "gbnf", "", "left recursion: a rule can reach itself without consuming input"),
        Row("root ::= missing", .syntax, "gbnf", "1:10", "undefined rule 'missing'"),
        Row(#"root ::= "a" undefined-rule"#, .syntax, "gbnf", "1:14", "undefined rule 'undefined-rule'"),
        Row(#"start ::= "a""#, .syntax, "gbnf", "1:14", "no 'root' rule"),
        Row("", .syntax, "gbnf", "1:1", "no 'root' rule"),
        Row(#"root ::= "a"{1000000000}"#, .syntax, "gbnf", "1:20", "repetition count too large"),
        Row("root ::= [a-", .syntax, "gbnf", "1:13", "unterminated character class"),
        Row(#"root ::= "unterminated"#, .syntax, "gbnf", "1:23", "unterminated string literal"),
        Row(#"root ::= ("a""#, .syntax, "gbnf", "1:14", "expected ')'"),
    ]

    @Test(arguments: gbnfRows) func gbnfErrors(_ row: Row) {
        Self.expectError(row) { (s) throws(GrammarError) in try Grammar(gbnf: s) }
    }

    static let regexRows: [Row] = [
        Row("a(b", .syntax, "regex", "", "regex: missing ')' at offset 3"),
        Row("\\", .syntax, "regex", "", "regex: trailing backslash at offset 1"),
        Row("[z-a]", .syntax, "regex", "", "regex: class range out of order at offset 4"),
        Row("(?=a)b", .unsupported, "regex", "", "regex: lookaround or inline flags"),
        Row("^a$b", .unsupported, "regex", "", "regex: anchor inside the pattern"),
        Row("a{1000000000}", .limit, "regex", "", "regex expands to too many states"),
        Row("(a|b)*a(a|b){40}", .limit, "regex", "", "regex needs more than 20000 DFA states"),
        Row(#"(\d{0,300}){0,300}"#, .limit, "regex", "", "regex needs more than 100000000 steps to determinize"),
    ]

    @Test(arguments: regexRows) func regexErrors(_ row: Row) {
        Self.expectError(row) { (s) throws(GrammarError) in try Grammar(regex: s) }
    }

    // MARK: - Legal but hostile: compiled and enforced exactly

    static let bytes = GrammarVocabulary(tokens: (0..<256).map { [UInt8($0)] } + [[]], endOfGeneration: [256])

    /// Whether `text` is a complete sentence of `g` (then end-of-generation is allowed).
    static func accepts(_ g: Grammar, _ text: String) -> Bool {
        let m = GrammarMatcher(grammar: g, vocabulary: bytes)
        return m.accept(bytes: Array(text.utf8)) && m.isComplete
    }

    /// Whether `text` can still be extended to a sentence.
    static func isPrefix(_ g: Grammar, _ text: String) -> Bool {
        GrammarMatcher(grammar: g, vocabulary: bytes).accept(bytes: Array(text.utf8))
    }

    /// Contradictory keywords compile to a grammar with no sentence at all: the first mask is
    /// empty and end-of-generation is not allowed, so nothing can be generated. (No compile-time
    /// error today; the generation layer sees an empty mask. See docs/reliability.md.)
    @Test(arguments: [
        #"{"type":"integer","minimum":5,"maximum":1}"#, #"{"type":"string","minLength":5,"maxLength":2}"#,
        #"{"type":"integer","minimum":1.2,"maximum":1.8}"#, #"{"type":"integer","exclusiveMinimum":3,"exclusiveMaximum":4}"#,
        #"{"type":"number","minimum":2,"exclusiveMaximum":2}"#, #"{"type":"integer","minimum":-1.5,"maximum":-1.2}"#,
        #"{"type":"array","minItems":3,"maxItems":1}"#, #"{"allOf":[{"type":"string"},{"type":"number"}]}"#,
        #"{"const":1,"enum":[2,3]}"#, "false", #"{"not":{}}"#,
    ])
    func contradictorySchemasAdmitNothing(_ schema: String) throws {
        // Recognition allows whitespace around the value; not around a value that cannot exist.
        for options in [JSONSchemaOptions(), .recognition] {
            let g = try Grammar(jsonSchema: schema, options: options)
            let m = GrammarMatcher(grammar: g, vocabulary: Self.bytes)
            var mask = [UInt64](repeating: 0, count: m.maskWordCount)
            m.mask(into: &mask)
            #expect(mask.allSatisfy { $0 == 0 }, "\(schema) allows a first token")
            #expect(!m.isComplete)
            for instance in ["1", "3", "5", "\"abc\"", "[]", "[1,2]", "null", "{}", " "] {
                #expect(!Self.accepts(g, instance), "\(schema) accepted \(instance)")
            }
        }
    }

    /// `$ref` cycles that never reach a constraint (`{"$ref":"#"}`, a→b→a, allOf of itself) are
    /// resolved without looping; they impose nothing, so any JSON value is accepted, as `true`
    /// would. Recursive schemas that do constrain (a linked list) stay exact.
    @Test func recursiveReferenceLoopsTerminate() throws {
        for schema in [##"{"$ref":"#"}"##, ##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
                       ##"{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}"##] {
            let g = try Grammar(jsonSchema: schema)
            for instance in ["1", "{}", "\"a\"", "[null]"] { #expect(Self.accepts(g, instance), "\(schema) \(instance)") }
        }
        let list = try Grammar(jsonSchema: ##"{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}},"additionalProperties":false}},"$ref":"#/$defs/node"}"##)
        #expect(Self.accepts(list, #"{"v":1,"next":{"v":2,"next":{}}}"#))
        #expect(!Self.isPrefix(list, #"{"v":1,"next":{"v":"x""#))
    }

    /// Enormous bounds are kept as counters, not unrolled: compiling is instant and the bound is
    /// still exact (a minimum of 10^9 is never reached early; a maximum of 10^9 never cuts short).
    @Test func enormousLengthAndCountBoundsStayExact() throws {
        let long = "\"" + String(repeating: "a", count: 5000) + "\""
        let maxLength = try Grammar(jsonSchema: #"{"type":"string","maxLength":1000000000}"#)
        #expect(Self.accepts(maxLength, "\"abc\"") && Self.accepts(maxLength, long))
        let minLength = try Grammar(jsonSchema: #"{"type":"string","minLength":1000000000}"#)
        #expect(!Self.accepts(minLength, long) && Self.isPrefix(minLength, String(long.dropLast())))
        let maxItems = try Grammar(jsonSchema: #"{"type":"array","items":{"type":"integer"},"maxItems":1000000000}"#)
        #expect(Self.accepts(maxItems, "[1,2,3]"))
        let minItems = try Grammar(jsonSchema: #"{"type":"array","items":{"type":"integer"},"minItems":1000000000}"#)
        #expect(!Self.accepts(minItems, "[1,2,3]") && Self.isPrefix(minItems, "[1,2,3,"))
        let minProperties = try Grammar(jsonSchema: #"{"type":"object","minProperties":1000000000}"#)
        #expect(!Self.accepts(minProperties, #"{"a":1}"#) && Self.isPrefix(minProperties, #"{"a":1,"#))
        let huge = try Grammar(jsonSchema: #"{"type":"string","maxLength":1e100}"#)
        #expect(Self.accepts(huge, long))
    }

    /// Ignoring an annotation-only keyword is not loosening a constraint.
    @Test func annotationKeywordsAreIgnored() throws {
        let g = try Grammar(jsonSchema: #"{"type":"string","contentEncoding":"base64","title":"t","description":"d","examples":["x"]}"#)
        #expect(g.warnings.isEmpty)
        #expect(Self.accepts(g, "\"not base64!\""))
    }
}
