import Foundation
import LoomJSON
import Provider
import Testing

/// Each expected schema below is written by hand from the rules in docs/generable-macros.md,
/// never copied from the macro's output; `==` on `JSONValue` ignores member order, so the order
/// rules get checks of their own.
@Suite struct GenerableSchemaRuleTests {
    static func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    @Test func aStructIsAnObjectOfItsStoredPropertiesInDeclarationOrder() throws {
        let expected = try Self.json("""
            {"title":"Person","type":"object","description":"A person",
             "properties":{
               "name":{"type":"string","description":"Full name"},
               "age":{"type":"integer","description":"Age in years","minimum":0,"maximum":120},
               "nickname":{"type":"string"},
               "isMember":{"type":"boolean"}},
             "required":["name","age","isMember"],
             "additionalProperties":false}
            """)
        let schema = Person.generationSchema
        #expect(schema.jsonSchema == expected)
        #expect(schema.name == "Person")
        let properties = try #require(schema.jsonSchema["properties"]?.objectValue)
        #expect(properties.keys == ["name", "age", "nickname", "isMember"])
        let keys = try #require(schema.jsonSchema.objectValue).keys
        #expect(keys == ["title", "type", "description", "properties", "required", "additionalProperties"])
    }

    @Test func theCodableFormStatesPropertyOrderAsXOrder() throws {
        let text = String(decoding: try JSONEncoder().encode(Order.generationSchema), as: UTF8.self)
        let encoded = try JSONValue(parsing: text)
        #expect(encoded["x-order"] == ["item", "extras", "mood", "size", "next"])
        #expect(encoded["properties"]?["item"]?["x-order"] == ["name", "quantity"])
        #expect(encoded["properties"]?["extras"]?["items"]?["x-order"] == ["name", "quantity"])
        #expect(encoded["properties"]?["next"]?["anyOf"]?.arrayValue?.first?["properties"]?["move"]?["x-order"] == ["x", "y"])
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: Data(text.utf8))
        #expect(decoded.jsonSchema == Order.generationSchema.jsonSchema)
        #expect(decoded.jsonSchema["properties"]?.objectValue?.keys == ["item", "extras", "mood", "size", "next"])
    }

    @Test func eachGuideIsItsJSONSchemaKeyword() throws {
        let expected = try Self.json("""
            {"title":"GuideCatalogue","type":"object",
             "properties":{
               "rating":{"type":"integer","minimum":1,"maximum":10},
               "score":{"type":"number","minimum":0.5,"maximum":9.5},
               "floor":{"type":"integer","minimum":-3},
               "ratio":{"type":"number","minimum":0,"maximum":1},
               "three":{"type":"array","items":{"type":"string"},"minItems":3,"maxItems":3},
               "some":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":4},
               "bounded":{"type":"array","items":{"type":"number"},"minItems":1,"maxItems":5},
               "word":{"type":"string","pattern":"^[a-z]+$"},
               "zip":{"type":"string","description":"A zip code","pattern":"[0-9]{5}"},
               "colour":{"type":"string","enum":["red","green"]},
               "version":{"type":"string","const":"v1"},
               "dice":{"type":"array","items":{"type":"integer","minimum":1,"maximum":6}},
               "letters":{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":2,"maxItems":2}},
             "required":["rating","score","floor","ratio","three","some","bounded","word","zip","colour","version","dice","letters"],
             "additionalProperties":false}
            """)
        #expect(GuideCatalogue.generationSchema.jsonSchema == expected)
    }

    @Test func anEnumWithoutValuesIsAStringEnumOfItsCases() throws {
        #expect(Mood.generationSchema.jsonSchema
            == (try Self.json(#"{"title":"Mood","type":"string","description":"How it feels","enum":["happy","sad"]}"#)))
        #expect(Size.generationSchema.jsonSchema == (try Self.json(#"{"title":"Size","type":"string","enum":["S","L"]}"#)))
    }

    /// `Action`'s `anyOf`, by the rule for enums with associated values.
    static let actionChoices = """
        [{"type":"object","properties":{"move":{"type":"object",
            "properties":{"x":{"type":"integer"},"y":{"type":"integer"}},
            "required":["x","y"],"additionalProperties":false}},
          "required":["move"],"additionalProperties":false},
         {"type":"object","properties":{"say":{"type":"object",
            "properties":{"_0":{"type":"string"}},
            "required":["_0"],"additionalProperties":false}},
          "required":["say"],"additionalProperties":false},
         {"type":"object","properties":{"wait":{"type":"object",
            "properties":{"seconds":{"type":"number"}},
            "required":[],"additionalProperties":false}},
          "required":["wait"],"additionalProperties":false},
         {"type":"object","properties":{"stop":{"type":"object",
            "properties":{},"required":[],"additionalProperties":false}},
          "required":["stop"],"additionalProperties":false}]
        """

    @Test func anEnumWithValuesIsOneObjectPerCaseKeyedByTheCaseName() throws {
        let expected = try Self.json(#"{"title":"Action","anyOf":"# + Self.actionChoices + "}")
        #expect(Action.generationSchema.jsonSchema == expected)
    }

    @Test func nestedTypesAreInlineWithoutTheirTitle() throws {
        let item = #"{"type":"object","properties":{"name":{"type":"string","description":"What it is"},"quantity":{"type":"integer"}},"required":["name","quantity"],"additionalProperties":false}"#
        let itemDescribed = #"{"type":"object","properties":{"name":{"type":"string","description":"What it is"},"quantity":{"type":"integer"}},"required":["name","quantity"],"additionalProperties":false,"description":"The main item"}"#
        let expected = try Self.json("""
            {"title":"Order","type":"object",
             "properties":{
               "item":\(itemDescribed),
               "extras":{"type":"array","items":\(item),"maxItems":3},
               "mood":{"type":"string","description":"The customer's mood","enum":["happy","sad"]},
               "size":{"type":"string","enum":["S","L"]},
               "next":{"anyOf":\(Self.actionChoices)}},
             "required":["item","extras","mood","size"],
             "additionalProperties":false}
            """)
        let schema = Order.generationSchema.jsonSchema
        #expect(schema == expected)
        #expect(schema["$defs"] == nil)
    }
}
