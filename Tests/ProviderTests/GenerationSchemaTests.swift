import Foundation
import LoomJSON
import Testing
@testable import Provider

@Suite struct GenerationSchemaTests {
    /// Every schema of the mask benchmark survives raw JSON → GenerationSchema → JSON unchanged:
    /// same text (so key order, `$schema`, `$defs`, unknown keywords and number spellings).
    @Test func `raw JSON schemas are lossless over the whole maskbench dev set`() throws {
        let path = SharedData.path("grammar/maskbench-dev.jsonl")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var count = 0
        var withDefs = 0
        var changed: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let record = try JSONValue(parsing: String(line))
            let id = record["id"]?.stringValue ?? "?"
            guard let schemaValue = record["schema"] else { changed.append("\(id): no schema"); continue }
            let original = schemaValue.serialized()
            let schema = try GenerationSchema(jsonSchema: original)
            if schema.jsonString != original || schema.jsonSchema != schemaValue { changed.append("\(id): text") }
            // Through Codable as well: JSONEncoder output (which states member order beside
            // `properties`, as `x-order`) decodes to the same document.
            let encoded = try JSONEncoder().encode(schema)
            if try JSONDecoder().decode(GenerationSchema.self, from: encoded).jsonSchema != schemaValue {
                changed.append("\(id): Codable")
            }
            if original.contains("$defs") || original.contains("definitions") { withDefs += 1 }
            count += 1
        }
        #expect(changed.isEmpty, "changed: \(changed.prefix(10))")
        #expect(count == 2500)
        #expect(withDefs > 0)
    }

    @Test func `JSONEncoder writes standard JSON Schema`() throws {
        let schema = try GenerationSchema(jsonSchema: #"{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["b"]}"#)
        let encoder = JSONEncoder()
        let text = String(decoding: try encoder.encode(schema), as: UTF8.self)
        var value = try #require(try JSONValue(parsing: text).objectValue)
        // Member order is JSONEncoder's choice, so the order is stated beside `properties`.
        #expect(value["x-order"] == ["b", "a"])
        value["x-order"] = nil
        #expect(JSONValue.object(value) == schema.jsonSchema)
        #expect(schema.jsonString.contains(#""b":{"type":"string"},"a""#))
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: Data(text.utf8))
        #expect(decoded.jsonSchema == schema.jsonSchema)
        #expect(decoded.jsonSchema["properties"]?.objectValue?.keys == ["b", "a"])
        #expect(decoded.jsonSchema["x-order"] == nil)
    }

    @Test func `schema names come from title, root ref or the Swift type`() throws {
        #expect(try GenerationSchema(jsonSchema: #"{"title":"Person","type":"object"}"#).name == "Person")
        #expect(try GenerationSchema(jsonSchema: ##"{"$ref":"#/$defs/Node","$defs":{"Node":{}}}"##).name == "Node")
        #expect(try GenerationSchema(jsonSchema: #"{"type":"string"}"#).name == "")
        #expect(Itinerary.generationSchema.name == "Itinerary")
        #expect(try GenerationSchema(jsonSchema: "true").jsonString == "true")
        #expect(throws: GenerationSchema.SchemaError.self) { _ = try GenerationSchema(jsonSchema: "[1]") }
        #expect(throws: GenerationSchema.SchemaError.self) { _ = try GenerationSchema(jsonSchema: "{nope") }
    }

    @Test func `dynamic schemas build $defs and references`() throws {
        let address = DynamicGenerationSchema(name: "Address", properties: [
            .init(name: "street", schema: DynamicGenerationSchema(type: String.self)),
            .init(name: "zip", schema: DynamicGenerationSchema(type: String.self, guides: [.pattern("^[0-9]{5}$")]), isOptional: true),
        ])
        let person = DynamicGenerationSchema(name: "Person", description: "Someone", properties: [
            .init(name: "name", description: "Full name", schema: DynamicGenerationSchema(type: String.self)),
            .init(name: "home", schema: DynamicGenerationSchema(referenceTo: "Address")),
            .init(name: "mood", schema: DynamicGenerationSchema(name: "Mood", anyOf: ["happy", "sad"])),
            .init(name: "scores", schema: DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(type: Int.self), minimumElements: 1, maximumElements: 3)),
        ])
        let schema = try GenerationSchema(root: person, dependencies: [address])
        #expect(schema.name == "Person")
        #expect(schema.jsonString == ##"{"title":"Person","type":"object","description":"Someone","properties":{"name":{"type":"string","description":"Full name"},"home":{"$ref":"#/$defs/Address"},"mood":{"type":"string","enum":["happy","sad"]},"scores":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3}},"required":["name","home","mood","scores"],"additionalProperties":false,"$defs":{"Address":{"title":"Address","type":"object","properties":{"street":{"type":"string"},"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["street"],"additionalProperties":false}}}"##)
    }

    @Test func `dynamic schema errors are typed`() {
        let dangling = DynamicGenerationSchema(name: "A", properties: [.init(name: "b", schema: DynamicGenerationSchema(referenceTo: "B"))])
        #expect {
            _ = try GenerationSchema(root: dangling, dependencies: [])
        } throws: { error in
            guard case GenerationSchema.SchemaError.undefinedReferences(_, let refs, _) = error else { return false }
            return refs == ["B"]
        }
        let duplicate = DynamicGenerationSchema(name: "A", properties: [
            .init(name: "x", schema: DynamicGenerationSchema(type: Int.self)),
            .init(name: "x", schema: DynamicGenerationSchema(type: Int.self)),
        ])
        #expect(throws: GenerationSchema.SchemaError.self) { _ = try GenerationSchema(root: duplicate, dependencies: []) }
        let empty = DynamicGenerationSchema(name: "E", anyOf: [String]())
        #expect(throws: GenerationSchema.SchemaError.self) { _ = try GenerationSchema(root: empty, dependencies: []) }
    }

    @Test func `nested Generable schemas hoist their definitions`() throws {
        struct Inner: Generable {
            static var generationSchema: GenerationSchema {
                try! GenerationSchema(jsonSchema: ##"{"title":"Inner","$ref":"#/$defs/Leaf","$defs":{"Leaf":{"type":"integer"}}}"##)
            }
            init(_ content: GeneratedContent) throws {}
        }
        struct Outer: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Outer.self, properties: [.init(name: "inner", type: Inner.self), .init(name: "list", type: [Inner].self)])
            }
            init(_ content: GeneratedContent) throws {}
        }
        let schema = Outer.generationSchema.jsonSchema
        #expect(schema["$defs"]?["Leaf"] == ["type": "integer"])
        #expect(schema["properties"]?["inner"]?["$ref"] == "#/$defs/Leaf")
        #expect(schema["properties"]?["list"]?["items"]?["$ref"] == "#/$defs/Leaf")
    }

    @Test func `hand-written schemas apply guides and choices`() throws {
        struct Mood: Generable {
            static var generationSchema: GenerationSchema { GenerationSchema(type: Mood.self, anyOf: ["calm", "busy"]) }
            init(_ content: GeneratedContent) throws {}
        }
        struct Either: Generable {
            static var generationSchema: GenerationSchema { GenerationSchema(type: Either.self, anyOf: [Mood.self, Int.self]) }
            init(_ content: GeneratedContent) throws {}
        }
        struct Card: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Card.self, properties: [
                    .init(name: "kind", type: String.self, guides: [.constant("card")]),
                    .init(name: "scores", description: "Per round", type: [Int].self,
                          guides: [.count(3), .element(.range(0...10))]),
                    .init(name: "note", type: String?.self),
                    .init(name: "mood", type: Mood.self),
                ])
            }
            init(_ content: GeneratedContent) throws {}
        }
        #expect(Mood.generationSchema.jsonString == #"{"title":"Mood","type":"string","enum":["calm","busy"]}"#)
        #expect(Either.generationSchema.jsonSchema["anyOf"]?.arrayValue?.count == 2)
        let card = Card.generationSchema
        #expect(card.jsonString == #"{"title":"Card","type":"object","properties":{"kind":{"type":"string","const":"card"},"scores":{"type":"array","items":{"type":"integer","minimum":0,"maximum":10},"description":"Per round","minItems":3,"maxItems":3},"note":{"type":"string"},"mood":{"type":"string","enum":["calm","busy"]}},"required":["kind","scores","mood"],"additionalProperties":false}"#)
    }
}
