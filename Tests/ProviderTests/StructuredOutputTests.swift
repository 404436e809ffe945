import Foundation
import Testing
@testable import Provider

/// A hand-conformed Generable type (no macros): schema + init from content.
struct Itinerary: Generable, Equatable {
    var city: String
    var days: Int
    var sights: [String]

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Itinerary.self, description: "A trip plan", properties: [
            .init(name: "city", type: String.self),
            .init(name: "days", type: Int.self, guides: [.range(1...14)]),
            .init(name: "sights", type: [String].self, guides: [.maximumCount(5)]),
        ])
    }

    init(city: String, days: Int, sights: [String]) {
        self.city = city
        self.days = days
        self.sights = sights
    }

    init(_ content: GeneratedContent) throws {
        city = try content.value(forProperty: "city")
        days = try content.value(forProperty: "days")
        sights = try content.value(forProperty: "sights")
    }
}

/// A plain Codable type: the schema is derived.
struct Recipe: Codable, Equatable, Sendable {
    enum Course: String, Codable, CaseIterable, Sendable { case starter, main, dessert }
    struct Ingredient: Codable, Equatable, Sendable { var name: String; var grams: Double? }
    var title: String
    var course: Course
    var ingredients: [Ingredient]
    var vegetarian: Bool
}

/// Both Generable and Decodable: the Generable schema must be used.
struct Both: Generable, Decodable, Equatable {
    var value: String
    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Both.self, description: "generable wins", properties: [.init(name: "value", type: String.self)])
    }
}

@Suite(.timeLimit(.minutes(2))) struct StructuredOutputTests {
    @Test func `a Generable type round-trips through the session`() async throws {
        let json = #"{"city":"Buenos Aires","days":4,"sights":["La Boca","Recoleta"]}"#
        let model = MockLanguageModel(steps: [[.text(String(json.prefix(20))), .text(String(json.dropFirst(20)))]])
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(to: "Plan", generating: Itinerary.self)
        #expect(response.content == Itinerary(city: "Buenos Aires", days: 4, sights: ["La Boca", "Recoleta"]))
        #expect(response.rawContent.jsonString == json)
        let request = try #require(MockRegistry.get(model.tag).requests.first)
        #expect(request.schema == Itinerary.generationSchema)
        #expect(request.contextOptions.includeSchemaInPrompt == true)
        #expect(request.schema?.name == "Itinerary")
        let days = request.schema?.jsonSchema["properties"]?["days"]
        #expect(days?["minimum"] == 1 && days?["maximum"] == 14)
        #expect(request.transcript.last?.promptValue?.responseFormat?.kind == .schema(Itinerary.generationSchema))
    }

    @Test func `a Codable type gets a derived schema and decodes the response`() async throws {
        let json = #"{"title":"Soup","course":"starter","ingredients":[{"name":"leek","grams":200}],"vegetarian":true}"#
        let model = MockLanguageModel(steps: [[.text(json)]])
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(to: "Soup", generating: Recipe.self, includeSchemaInPrompt: false)
        #expect(response.content == Recipe(title: "Soup", course: .starter,
                                           ingredients: [.init(name: "leek", grams: 200)], vegetarian: true))
        let request = try #require(MockRegistry.get(model.tag).requests.first)
        #expect(request.contextOptions.includeSchemaInPrompt == false)
        let schema = try #require(request.schema?.jsonSchema)
        #expect(schema["properties"]?["course"]?["enum"] == ["starter", "main", "dessert"])
        #expect(schema["required"] == ["title", "course", "ingredients", "vegetarian"])
    }

    @Test func `Generable wins over Decodable`() async throws {
        let model = MockLanguageModel(steps: [[.text(#"{"value":"v"}"#)]])
        let response = try await LanguageModelSession(model: model).respond(to: "x", generating: Both.self)
        #expect(response.content == Both(value: "v"))
        #expect(MockRegistry.get(model.tag).requests.first?.schema?.jsonSchema["description"] == "generable wins")
    }

    @Test func `a raw JSON schema round-trips through the session`() async throws {
        let schemaText = #"{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"Point","type":"object","properties":{"x":{"type":"number","multipleOf":0.5},"y":{"type":"number"}},"required":["x","y"],"x-vendor":{"keep":true}}"#
        let schema = try GenerationSchema(jsonSchema: schemaText)
        let model = MockLanguageModel(steps: [[.text(#"{"x":1.5,"y":-2}"#)]])
        let response = try await LanguageModelSession(model: model).respond(to: "x", schema: schema)
        #expect(try response.content.value(Double.self, forProperty: "x") == 1.5)
        #expect(MockRegistry.get(model.tag).requests.first?.schema?.jsonString == schemaText)
    }

    @Test func `truncated structured output throws ParsingError with the raw content`() async throws {
        let model = MockLanguageModel(steps: [[.text(#"{"city":"Rome","da"#)]])
        let session = LanguageModelSession(model: model)
        do {
            _ = try await session.respond(to: "x", generating: Itinerary.self)
            Issue.record("expected ParsingError")
        } catch let error as GeneratedContent.ParsingError {
            #expect(error.rawContent == #"{"city":"Rome","da"#)
            #expect(error.debugDescription.contains("ended before"))
        }
        #expect(session.transcript.isEmpty, "a failed parse reverts like any error")
    }

    @Test func `content missing a required property throws ParsingError naming it`() async throws {
        let model = MockLanguageModel(steps: [[.text(#"{"city":"Rome","sights":[]}"#)]])
        do {
            _ = try await LanguageModelSession(model: model).respond(to: "x", generating: Itinerary.self)
            Issue.record("expected ParsingError")
        } catch let error as GeneratedContent.ParsingError {
            #expect(error.debugDescription == "GeneratedContent does not contain a property 'days'.")
            #expect(error.rawContent == #"{"city":"Rome","sights":[]}"#)
        }
    }

    @Test func `structured streaming yields partial content as it grows`() async throws {
        let model = MockLanguageModel(steps: [[.text(#"{"city":"Ro"#), .text(#"me","days":3,"#), .text(#""sights":["Forum"]}"#)]])
        let session = LanguageModelSession(model: model)
        var partials: [GeneratedContent] = []
        for try await snapshot in session.streamResponse(to: "x", generating: Itinerary.self) {
            partials.append(snapshot.content)
        }
        #expect(partials.map(\.jsonString) == [#"{"city":"Ro"}"#, #"{"city":"Rome","days":3}"#,
                                                 #"{"city":"Rome","days":3,"sights":["Forum"]}"#])
        #expect(partials.dropLast().allSatisfy { !$0.isComplete })
        #expect(partials.last?.isComplete == true)
        #expect(Set(partials.map(\.id)).count == 1, "snapshots keep one generation id")
    }

    @Test func `streaming a schema collects into complete content`() async throws {
        let schema = try GenerationSchema(jsonSchema: #"{"type":"array","items":{"type":"integer"}}"#)
        let model = MockLanguageModel(steps: [[.text("[1,"), .text("2]")]])
        let response = try await LanguageModelSession(model: model).streamResponse(to: "x", schema: schema).collect()
        #expect(try response.content.value([Int].self) == [1, 2])
    }

    @Test func `generating String uses the text path`() async throws {
        let model = MockLanguageModel(text: ["plain"])
        let response = try await LanguageModelSession(model: model, tools: []).respond(to: "x", generating: String.self)
        #expect(response.content == "plain")
        #expect(MockRegistry.get(model.tag).requests.first?.schema == nil)
    }
}
