import Foundation
import LoomJSON
import Testing
@testable import Grammar

/// Constructs compiled exactly through complements and membership checks, each on MaskBench
/// schemas that use it, replayed with their own valid and invalid instances (strict recognition):
/// the complement of `oneOf` (no branch holds, or two do), of `items` (some item fails: `contains`
/// of the complement), of `properties`/`patternProperties`/`additionalProperties` (some member
/// breaks them), and `enum`/`const` members that are objects or arrays beside object and
/// array keywords (each member checked against them).
@Suite struct ComplementCoverageTests {
    /// MaskBench rows by id.
    static let maskbench: [String: JSONObject] = {
        var out: [String: JSONObject] = [:]
        guard let text = try? SharedData.text("grammar/maskbench-dev.jsonl") else { return out }
        for line in text.split(separator: "\n") {
            guard case .object(let row) = try? JSONValue(parsing: String(line)), let id = row["id"]?.stringValue else { continue }
            out[id] = row
        }
        return out
    }()

    static let notOneOf = [
        "Synthesized---draft2019_09_valid_oneOf_id18_subschema1_not_2",
        "Synthesized---draft2019_09_valid_oneOf_id21_subschema1_not_2",
        "Synthesized---draft2019_09_valid_oneOf_id25_subschema1_not_2",
    ]
    static let notItems = [
        "Github_medium---o23177",
        "Github_medium---o55361",
        "JsonSchemaStore---grunt-watch-task",
    ]
    /// The complement of `properties` beside `additionalProperties`, and of `patternProperties`:
    /// some member breaks them (directly, and as `oneOf` branches that may overlap).
    static let notMemberKeywords = [
        "Github_trivial---o10020",
        "Synthesized---draft2019_09_valid_additionalProperties_id11_subschema1_not_2",
        "Synthesized---draft2019_09_valid_patternProperties_id3_subschema1_not_2",
        "Synthesized---draft2019_09_valid_patternProperties_id11_subschema1_not_2",
    ]
    static let containerEnums = [
        "Synthesized---draft2019_09_nonvalid_additionalProperties_id10_subschema1_not_2",
        "Synthesized---draft2019_09_nonvalid_allOf_id2_subschema1_not_2",
        "Synthesized---draft2019_09_nonvalid_items_id2_subschema1_not_2",
        "Synthesized---draft2019_09_nonvalid_patternProperties_id6_subschema1_not_2",
        "Synthesized---draft2019_09_valid_enum_id13_subschema1_not_2",
        "Synthesized---draft4_nonvalid_oneOf_id9_subschema1_not_2",
    ]

    @Test(arguments: notOneOf + notItems + notMemberKeywords + containerEnums)
    func suiteInstancesAgree(id: String) throws {
        let row = try #require(Self.maskbench[id], "\(id) not in maskbench-dev.jsonl")
        let schema = try #require(row["schema"])
        let tests = try #require(row["tests"]?.arrayValue)
        #expect(!tests.isEmpty)
        let g = try Grammar(jsonSchema: schema, options: .recognition)
        for t in tests {
            let tc = try #require(t.objectValue)
            let text = try #require(tc["text"]?.stringValue)
            let valid = try #require(tc["valid"]?.boolValue)
            #expect(Replay.accepts(g, text) == valid, "\(id) valid=\(valid): \(text)")
        }
    }

    /// A member breaking `additionalProperties: false` or a pattern's schema is what the
    /// complement needs; an object without one is refused at its closing brace.
    @Test func complementOfMemberKeywordsNeedsABreakingMember() throws {
        let g = try Grammar(jsonSchema: #"{"not":{"properties":{"a":{"type":"integer"}},"patternProperties":{"^x":{"type":"string"}},"additionalProperties":false}}"#,
                            options: .recognition)
        #expect(!Replay.accepts(g, #"{"a":1}"#))
        #expect(!Replay.accepts(g, #"{"a":1,"x1":"s"}"#))
        #expect(Replay.accepts(g, #"{"a":"one"}"#))
        #expect(Replay.accepts(g, #"{"a":1,"x1":2}"#))
        #expect(Replay.accepts(g, #"{"b":1}"#))
        // Member keywords hold for every non-object, so its complement has none.
        #expect(!Replay.accepts(g, "[]"))
        #expect(!Replay.accepts(g, "{}"))
    }

    /// Generation writes an object enum member as its literal only when it satisfies the keywords
    /// beside it (the member failing `required` is never offered).
    @Test func containerEnumMembersAreFilteredByTheirSiblings() throws {
        let schema = #"{"enum":[{"a":1},{"b":2},[1,2],[1,1]],"required":["a"],"uniqueItems":true}"#
        let g = try Grammar(jsonSchema: schema)
        #expect(Replay.accepts(g, #"{"a":1}"#))
        #expect(!Replay.accepts(g, #"{"b":2}"#))
        #expect(Replay.accepts(g, "[1,2]"))
        #expect(!Replay.accepts(g, "[1,1]"))
    }
}

/// `maxLength`/`minLength` count code points (JSON Schema), so a surrogate pair written as two
/// `\u` escapes counts once, as the same character written raw does. Instances from the
/// JSON-Schema-Test-Suite's maxLength.json and minLength.json ("two graphemes is long enough",
/// "one grapheme is not long enough"), spelled both ways.
@Suite struct StringLengthCodePointTests {
    static let pilePair = #"\ud83d\udca9"#
    static let pile = "\u{1F4A9}"

    @Test func surrogatePairCountsOnceTowardMaxLength() throws {
        for options in [JSONSchemaOptions(), .recognition] {
            let g = try Grammar(jsonSchema: #"{"maxLength":2}"#, options: options)
            #expect(Replay.accepts(g, "\"" + Self.pilePair + Self.pilePair + "\""))
            #expect(Replay.accepts(g, "\"" + Self.pile + Self.pile + "\""))
            #expect(Replay.accepts(g, "\"" + Self.pilePair + Self.pile + "\""))
            #expect(!Replay.accepts(g, "\"" + Self.pilePair + Self.pilePair + "a\""))
            #expect(Replay.accepts(g, #""fo""#))
            #expect(!Replay.accepts(g, #""foo""#))
        }
    }

    @Test func surrogatePairCountsOnceTowardMinLength() throws {
        for options in [JSONSchemaOptions(), .recognition] {
            let g = try Grammar(jsonSchema: #"{"type":"string","minLength":2}"#, options: options)
            #expect(!Replay.accepts(g, "\"" + Self.pilePair + "\""))
            #expect(!Replay.accepts(g, "\"" + Self.pile + "\""))
            #expect(Replay.accepts(g, "\"" + Self.pilePair + Self.pilePair + "\""))
            #expect(Replay.accepts(g, #""fo""#))
            #expect(!Replay.accepts(g, #""f""#))
        }
    }

    /// A length-bounded string decodes its escapes, so an escaped surrogate stands only as half
    /// of a pair, as in a string with a pattern.
    @Test func loneSurrogateEscapesAreRefusedWhereLengthCounts() throws {
        let g = try Grammar(jsonSchema: #"{"type":"string","maxLength":4}"#, options: .recognition)
        #expect(!Replay.accepts(g, #""\ud83d""#))
        #expect(!Replay.accepts(g, #""\udca9""#))
        #expect(!Replay.accepts(g, #""\ud83dx""#))
    }

    /// The complement of `contains` (at least one item matches): an array whose every item fails
    /// it. `minContains: 0` never fails, so its complement admits nothing; other counts are refused.
    @Test func complementOfContainsIsEveryItemFailing() throws {
        let g = try Grammar(jsonSchema: #"{"not":{"contains":{"const":1}}}"#, options: .recognition)
        for t in ["[]", "[2,3]", "[[1]]"] { #expect(Replay.accepts(g, t), "\(t)") }
        for t in ["[1]", "[2,1]", "1", "{}", #""a""#] { #expect(!Replay.accepts(g, t), "\(t)") }
        let never = try Grammar(jsonSchema: #"{"not":{"contains":{"const":1},"minContains":0}}"#, options: .recognition)
        for t in ["[]", "[1]", "2"] { #expect(!Replay.accepts(never, t), "\(t)") }
        #expect(throws: GrammarError.self) {
            _ = try Grammar(jsonSchema: #"{"not":{"contains":{"const":1},"minContains":2}}"#, options: .recognition)
        }
    }

    /// Two complements of member keywords in one object (`not` of an `anyOf`): some member must
    /// break each, one member may break both, and the object closes only when both are broken.
    @Test func twoMemberComplementsNeedAWitnessEach() throws {
        let schema = #"{"type":"object","not":{"anyOf":[{"properties":{"a":{"type":"string"}}},{"additionalProperties":{"type":"integer"}}]}}"#
        for options in [JSONSchemaOptions.recognition, JSONSchemaOptions(schemaOrder: false)] {
            let g = try Grammar(jsonSchema: schema, options: options)
            for t in [#"{"a":1,"b":"x"}"#, #"{"a":true}"#, #"{"b":"x","a":null}"#] { #expect(Replay.accepts(g, t), "\(t)") }
            for t in [#"{"a":1}"#, #"{"a":"s","b":"x"}"#, #"{"b":"x"}"#, "{}", "1", #"{"a":1,"b":2}"#] {
                #expect(!Replay.accepts(g, t), "\(t)")
            }
        }
    }
}
