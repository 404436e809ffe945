// The grammar matcher driven by fuzzed token streams over fixed grammars and a small vocabulary.
//
// Input layout: byte 0 picks the grammar; then each operation is one byte (its low 3 bits pick
// the kind) plus an argument byte. Properties (checked by CheckedMatcher after every step): the
// mask equals per-token `isAllowed`; `accept` succeeds exactly for masked-in tokens and a refusal
// leaves the state alone; end-of-generation is allowed exactly when complete; rollback restores
// the remembered mask; forks and cold-cache replays agree; forced bytes agree with the mask.
import FuzzGrammarSupport
import FuzzSupport
import Grammar

func compile(_ label: String, _ make: () throws(GrammarError) -> Grammar) -> Grammar {
    do { return try make() } catch { fatalError("fuzz: fixed grammar \(label) does not compile: \(error)") }
}

let grammars: [Grammar] = [
    compile("object") { () throws(GrammarError) in try Grammar(jsonSchema: #"""
        {"type":"object","properties":{"name":{"type":"string","maxLength":8},"age":{"type":"integer","minimum":0,"maximum":150},
         "tags":{"type":"array","items":{"enum":["a","b","日本"]},"maxItems":3},"ok":{"type":"boolean"}},
         "required":["name","age"],"additionalProperties":false}
        """#) },
    compile("anyJSON") { () throws(GrammarError) in try Grammar(jsonSchema: "{}") },
    compile("anyOf") { () throws(GrammarError) in try Grammar(jsonSchema: #"""
        {"anyOf":[{"type":"number","exclusiveMinimum":-1.5,"multipleOf":0.5},{"type":"string","pattern":"^[a-c]+x?$"},
                  {"type":"null"},{"$ref":"#/$defs/node"}],
         "$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"},"v":{"const":1}}}}}
        """#) },
    compile("formats") { () throws(GrammarError) in try Grammar(jsonSchema: #"""
        {"type":"array","prefixItems":[{"type":"string","format":"date-time"},{"type":"string","format":"email"},
         {"type":"string","format":"uuid"}],"items":false}
        """#, options: JSONSchemaOptions(whitespace: true)) },
    compile("gbnf-json") { () throws(GrammarError) in
        try Grammar(gbnf: String(decoding: SharedData.bytes("grammar/gbnf/json.gbnf"), as: UTF8.self)) },
    compile("gbnf-arithmetic") { () throws(GrammarError) in
        try Grammar(gbnf: String(decoding: SharedData.bytes("grammar/gbnf/arithmetic.gbnf"), as: UTF8.self)) },
    compile("gbnf-japanese") { () throws(GrammarError) in
        try Grammar(gbnf: String(decoding: SharedData.bytes("grammar/gbnf/japanese.gbnf"), as: UTF8.self)) },
    compile("regex-phone") { () throws(GrammarError) in try Grammar(regex: #"\(?[0-9]{3}\)?[ -]?[0-9]{3}-[0-9]{4}"#) },
    compile("regex-alt") { () throws(GrammarError) in try Grammar(regex: "(ab|a)*b?[^\\n]{0,3}(é|日本)+") },
]

FuzzEntry.run { bytes in
    var input = FuzzInput(bytes)
    let m = CheckedMatcher(grammars[input.index(grammars.count)])
    var operations = 0
    while !input.isAtEnd && operations < 256 {
        operations += 1
        let op = input.byte()
        let arg = Int(input.byte())
        switch op & 7 {
        case 0, 1, 2: m.acceptAllowed(arg | Int(op >> 3) << 8)
        case 3: m.acceptAllowed(arg, preferContent: false)
        case 4: m.accept(arg | Int(op >> 7) << 8)  // any id, in or out of the mask, some past the vocabulary
        case 5: m.rollback(arg % 4)
        case 6: m.acceptForced()
        default: if arg & 1 == 0 { m.checkFork() } else { m.checkReplay() }
        }
    }
    m.checkReplay()
}
