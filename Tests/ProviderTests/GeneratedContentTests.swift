import Foundation
import Testing
@testable import Provider

@Suite struct GeneratedContentTests {
    @Test(arguments: [
        ("", nil, false),
        ("{", "{}", false),
        (#"{"a"#, "{}", false),
        (#"{"a":"#, "{}", false),
        (#"{"a":"x"#, #"{"a":"x"}"#, false),
        (#"{"a":"x\"#, #"{"a":"x"}"#, false),
        (#"{"a":"x\u00"#, #"{"a":"x"}"#, false),
        (#"{"a":1."#, #"{"a":1}"#, false),
        (#"{"a":-"#, "{}", false),
        (#"{"a":tr"#, #"{"a":true}"#, false),
        (#"{"a":[1,[2,{"b":nu"#, #"{"a":[1,[2,{"b":null}]]}"#, false),
        (#"{"a":1,"#, #"{"a":1}"#, false),
        (#"{"a":1}"#, #"{"a":1}"#, true),
        (#"  [ "é\n", 2.5e3 ] "#, #"["é\n",2.5e3]"#, true),
        ("12", "12", false),
    ] as [(String, String?, Bool)])
    func `partial JSON closes what is open`(input: String, expected: String?, complete: Bool) throws {
        let content = try GeneratedContent(partialJSON: input)
        #expect(content?.jsonString == expected)
        if expected != nil { #expect(content?.isComplete == complete) }
    }

    @Test(arguments: [#"{"a" 1}"#, "[1 2]", "x", #"{"a":1}}"#, "[tx]"])
    func `text that cannot be a JSON prefix throws`(input: String) {
        #expect(throws: GeneratedContent.ParsingError.self) { _ = try GeneratedContent(partialJSON: input) }
    }

    @Test func `content keeps member order and exposes kind`() throws {
        let content = try GeneratedContent(json: #"{"z":1,"a":[true,null,"s"]}"#)
        let structure = try #require(content.kind.structure)
        #expect(structure.orderedKeys == ["z", "a"])
        #expect(structure.properties["z"]?.kind == .number(1))
        #expect(try content.value([GeneratedContent].self, forProperty: "a").count == 3)
        #expect(try content.value(String?.self, forProperty: "missing") == nil)
        #expect(throws: GeneratedContent.ParsingError.self) { _ = try GeneratedContent(json: "{oops") }
    }

    @Test func `content can be built from properties and elements`() {
        let content = GeneratedContent(properties: ["name": "Ada", "age": 36, "tags": ["x", "y"]])
        #expect(content.jsonString == #"{"name":"Ada","age":36,"tags":["x","y"]}"#)
        let list = GeneratedContent(elements: [1, "two", true] as [any ConvertibleToGeneratedContent])
        #expect(list.jsonString == #"[1,"two",true]"#)
        #expect(GeneratedContent(kind: .structure(properties: ["b": GeneratedContent(kind: .bool(true))], orderedKeys: ["b"])).jsonString
                == #"{"b":true}"#)
    }

    @Test func `content is Codable and ParsingError bridges like Apple's`() throws {
        let content = try GeneratedContent(json: #"{"a":[1,2.5,"x"],"b":null}"#)
        let decoded = try JSONDecoder().decode(GeneratedContent.self, from: JSONEncoder().encode(content))
        #expect(decoded == content)
        let error = GeneratedContent.ParsingError(rawContent: "{", debugDescription: "cut")
        #expect((error as NSError).domain == "FoundationModels.GeneratedContent.ParsingError")
        #expect((error as NSError).code == 1)
        #expect((LanguageModelError.unsupportedGenerationGuide(.init(debugDescription: "x")) as NSError).code == 6)
    }

    @Test func `executor metadata of any Codable type converts to generated content`() {
        struct Tag: Codable, Equatable, Sendable { var id: Int; var label: String }
        let converted = TranscriptAssembler.convert(["n": 3, "tag": Tag(id: 1, label: "a"), "list": [1, 2]])
        #expect(converted["n"]?.jsonString == "3")
        #expect(converted["tag"]?.jsonString == #"{"id":1,"label":"a"}"# || converted["tag"]?.jsonString == #"{"label":"a","id":1}"#)
        #expect(converted["list"]?.jsonString == "[1,2]")
    }
}

private extension GeneratedContent.Kind {
    /// The object's members, nil for any other kind.
    var structure: (properties: [String: GeneratedContent], orderedKeys: [String])? {
        if case .structure(let properties, let keys) = self { return (properties, keys) }
        return nil
    }
}
