import Foundation
import LoomJSON
import Testing
@testable import Provider

@Suite struct SchemaDerivationTests {
    struct Flat: Decodable { var name: String; var count: Int; var ratio: Double; var ok: Bool; var note: String? }
    enum Color: String, Decodable, CaseIterable { case red, green }
    struct Nested: Decodable {
        struct Point: Decodable { var x: Int; var y: Int }
        var points: [Point]
        var color: Color
        var tags: [String]?
        var origin: Point?
        var link: URL
        var id: UUID
    }
    struct Renamed: Decodable {
        var firstName: String
        enum CodingKeys: String, CodingKey { case firstName = "first_name" }
    }
    struct WithDictionary: Decodable { var scores: [String: Int] }
    final class Node: Decodable { var value: Int = 0; var next: Node? }
    struct Custom: Decodable {
        var value: Int
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            value = c.contains(.value) ? try c.decode(Int.self, forKey: .value) : 0
        }
        enum CodingKeys: String, CodingKey { case value }
    }
    struct Validating: Decodable {
        var even: Int
        init(from decoder: any Decoder) throws {
            even = try decoder.singleValueContainer().decode(Int.self)
            if even == 0 { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "zero")) }
        }
    }
    enum Shape: Decodable { case circle(radius: Double), square(side: Double) }

    @Test func `a synthesized struct becomes an object schema in declaration order`() throws {
        let schema = try GenerationSchema(deriving: Flat.self)
        #expect(schema.name == "Flat")
        #expect(schema.jsonString == #"{"title":"Flat","type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"},"ratio":{"type":"number"},"ok":{"type":"boolean"},"note":{"type":"string"}},"required":["name","count","ratio","ok"],"additionalProperties":false}"#)
    }

    @Test func `nested types, arrays, optionals and String enums are described`() throws {
        let schema = try GenerationSchema(deriving: Nested.self).jsonSchema
        #expect(schema["properties"]?["points"]?["items"]?["properties"]?["x"] == ["type": "integer"])
        #expect(schema["properties"]?["color"] == ["type": "string", "enum": ["red", "green"]])
        #expect(schema["properties"]?["tags"]?["type"] == "array")
        #expect(schema["properties"]?["link"]?["format"] == "uri")
        #expect(schema["properties"]?["id"]?["format"] == "uuid")
        #expect(schema["required"] == ["points", "color", "link", "id"])
    }

    @Test func `coding keys name the generated properties`() throws {
        let schema = try GenerationSchema(deriving: Renamed.self).jsonSchema
        #expect(schema["properties"]?.objectValue?.keys == ["first_name"])
    }

    @Test func `top-level arrays and enums derive too`() throws {
        #expect(try GenerationSchema(deriving: [Color].self).jsonString == #"{"type":"array","items":{"type":"string","enum":["red","green"]}}"#)
        #expect(try GenerationSchema(deriving: Color.self).jsonSchema["enum"] == ["red", "green"])
    }

    @Test(arguments: ["Dictionary<String, Int>", "Node", "Custom", "Validating", "Shape"])
    func `undescribable types fail with an error naming the type`(name: String) {
        func derive<T: Decodable>(_ t: T.Type) throws { _ = try GenerationSchema(deriving: t) }
        do {
            switch name {
            case "Node": try derive(Node.self)
            case "Custom": try derive(Custom.self)
            case "Validating": try derive(Validating.self)
            case "Shape": try derive(Shape.self)
            default: try derive(WithDictionary.self)
            }
            Issue.record("expected a DerivationError for \(name)")
        } catch let error as GenerationSchema.DerivationError {
            #expect(error.typeName == name)
            #expect(error.debugDescription.contains(name))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
