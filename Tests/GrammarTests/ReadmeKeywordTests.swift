import Foundation
import Testing
@testable import Grammar

/// The README lists the JSON Schema keywords and formats Loom enforces exactly. Each listed
/// keyword must have a case below in which the compiled grammar accepts a valid instance and
/// rejects an invalid one — so the list cannot claim what the compiler does not do — and every
/// keyword the compiler's schema switch handles must be listed.
@Suite struct ReadmeKeywordTests {
    struct Case: Sendable {
        let schema: String
        let valid: String
        let invalid: String
    }

    static let d7 = #""$schema":"http://json-schema.org/draft-07/schema#","#

    static let extendedList = ##"{"$id":"https://example.com/r","$dynamicAnchor":"n","$ref":"l","required":["v"],"$defs":{"l":{"$id":"l","$dynamicAnchor":"n","type":"object","properties":{"next":{"$dynamicRef":"#n"}}}}}"##

    /// keyword → a schema using it, an instance it admits and one it forbids (because of that keyword).
    static let keywords: [String: Case] = [
        "type": Case(schema: #"{"type":"integer"}"#, valid: "3", invalid: #""a""#),
        "enum": Case(schema: #"{"enum":["a","b"]}"#, valid: #""a""#, invalid: #""c""#),
        "const": Case(schema: #"{"const":5}"#, valid: "5.0", invalid: "6"),
        "nullable": Case(schema: #"{"type":"string","nullable":true}"#, valid: "null", invalid: "1"),
        "properties": Case(schema: #"{"type":"object","properties":{"a":{"type":"integer"}}}"#,
                           valid: #"{"a":1}"#, invalid: #"{"a":"x"}"#),
        "required": Case(schema: #"{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}"#,
                         valid: #"{"a":1}"#, invalid: "{}"),
        "additionalProperties": Case(schema: #"{"type":"object","properties":{"a":{}},"additionalProperties":false}"#,
                                     valid: #"{"a":1}"#, invalid: #"{"a":1,"b":2}"#),
        "patternProperties": Case(schema: #"{"type":"object","patternProperties":{"^x":{"type":"integer"}}}"#,
                                  valid: #"{"x1":1}"#, invalid: #"{"x1":"s"}"#),
        "propertyNames": Case(schema: #"{"type":"object","propertyNames":{"maxLength":2}}"#,
                              valid: #"{"ab":1}"#, invalid: #"{"abc":1}"#),
        "minProperties": Case(schema: #"{"type":"object","minProperties":1}"#, valid: #"{"a":1}"#, invalid: "{}"),
        "maxProperties": Case(schema: #"{"type":"object","maxProperties":1}"#, valid: #"{"a":1}"#, invalid: #"{"a":1,"b":2}"#),
        "dependentRequired": Case(schema: #"{"type":"object","dependentRequired":{"a":["b"]}}"#,
                                  valid: #"{"a":1,"b":2}"#, invalid: #"{"a":1}"#),
        "dependentSchemas": Case(schema: #"{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}"#,
                                 valid: #"{"a":1,"b":2}"#, invalid: #"{"a":1}"#),
        "dependencies": Case(schema: "{" + d7 + #""type":"object","dependencies":{"a":["b"]}}"#,
                             valid: #"{"a":1,"b":2}"#, invalid: #"{"a":1}"#),
        "items": Case(schema: #"{"type":"array","items":{"type":"integer"}}"#, valid: "[1,2]", invalid: #"[1,"a"]"#),
        "prefixItems": Case(schema: #"{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}]}"#,
                            valid: #"[1,"a"]"#, invalid: #"["a",1]"#),
        "additionalItems": Case(schema: "{" + d7 + #""type":"array","items":[{"type":"integer"}],"additionalItems":false}"#,
                                valid: "[1]", invalid: "[1,2]"),
        "minItems": Case(schema: #"{"type":"array","minItems":1}"#, valid: "[1]", invalid: "[]"),
        "maxItems": Case(schema: #"{"type":"array","maxItems":1}"#, valid: "[1]", invalid: "[1,2]"),
        "contains": Case(schema: #"{"type":"array","contains":{"const":1}}"#, valid: "[2,1]", invalid: "[2,3]"),
        "minContains": Case(schema: #"{"type":"array","contains":{"const":1},"minContains":2}"#, valid: "[1,1]", invalid: "[1,2]"),
        "maxContains": Case(schema: #"{"type":"array","contains":{"const":1},"maxContains":1}"#, valid: "[1,2]", invalid: "[1,1]"),
        "uniqueItems": Case(schema: #"{"type":"array","items":{"enum":[1,2]},"uniqueItems":true}"#, valid: "[1,2]", invalid: "[1,1]"),
        "minLength": Case(schema: #"{"type":"string","minLength":2}"#, valid: #""ab""#, invalid: #""a""#),
        "maxLength": Case(schema: #"{"type":"string","maxLength":2}"#, valid: #""ab""#, invalid: #""abc""#),
        "pattern": Case(schema: #"{"type":"string","pattern":"^[a-c]+$"}"#, valid: #""abc""#, invalid: #""abd""#),
        "format": Case(schema: #"{"type":"string","format":"date"}"#, valid: #""2024-02-29""#, invalid: #""2023-02-29""#),
        "minimum": Case(schema: #"{"type":"number","minimum":1.5}"#, valid: "1.5", invalid: "1.4"),
        "maximum": Case(schema: #"{"type":"number","maximum":1.5}"#, valid: "1.5", invalid: "1.6"),
        "exclusiveMinimum": Case(schema: #"{"type":"number","exclusiveMinimum":1}"#, valid: "1.01", invalid: "1"),
        "exclusiveMaximum": Case(schema: #"{"type":"number","exclusiveMaximum":1}"#, valid: "0.99", invalid: "1"),
        "multipleOf": Case(schema: #"{"type":"number","multipleOf":0.1}"#, valid: "0.3", invalid: "0.35"),
        "allOf": Case(schema: #"{"allOf":[{"type":"integer"},{"minimum":2}]}"#, valid: "2", invalid: "1"),
        "anyOf": Case(schema: #"{"anyOf":[{"type":"integer"},{"type":"boolean"}]}"#, valid: "true", invalid: #""a""#),
        "oneOf": Case(schema: #"{"oneOf":[{"type":"integer"},{"minimum":2}]}"#, valid: "1", invalid: "3"),
        "not": Case(schema: #"{"not":{"type":"string"}}"#, valid: "1", invalid: #""a""#),
        "if": Case(schema: #"{"if":{"type":"integer"},"then":{"minimum":0},"else":{"type":"string"}}"#, valid: "1", invalid: "-1"),
        "then": Case(schema: #"{"if":{"type":"integer"},"then":{"minimum":0}}"#, valid: "0", invalid: "-1"),
        "else": Case(schema: #"{"if":{"type":"integer"},"else":{"type":"string"}}"#, valid: #""a""#, invalid: "true"),
        "$ref": Case(schema: ##"{"$defs":{"p":{"type":"integer"}},"$ref":"#/$defs/p"}"##, valid: "1", invalid: #""a""#),
        "$defs": Case(schema: ##"{"$defs":{"p":{"type":"integer"}},"type":"array","items":{"$ref":"#/$defs/p"}}"##,
                      valid: "[1]", invalid: #"["a"]"#),
        "definitions": Case(schema: ##"{"definitions":{"p":{"type":"integer"}},"$ref":"#/definitions/p"}"##, valid: "1", invalid: #""a""#),
        "$id": Case(schema: #"{"$id":"http://example.com/root.json","$defs":{"p":{"$id":"p.json","type":"integer"}},"$ref":"p.json"}"#,
                    valid: "1", invalid: #""a""#),
        "$anchor": Case(schema: ##"{"$defs":{"p":{"$anchor":"num","type":"integer"}},"$ref":"#num"}"##, valid: "1", invalid: #""a""#),
        // The extension (which requires `v`) rebinds the list's recursion.
        "$dynamicRef": Case(schema: Self.extendedList, valid: #"{"v":1,"next":{"v":2}}"#, invalid: #"{"v":1,"next":{}}"#),
        "$dynamicAnchor": Case(schema: Self.extendedList, valid: #"{"v":1}"#, invalid: #"{"v":1,"next":{"next":{}}}"#),
        "unevaluatedProperties": Case(schema: #"{"type":"object","properties":{"a":{}},"unevaluatedProperties":false}"#,
                                      valid: #"{"a":1}"#, invalid: #"{"a":1,"b":2}"#),
        "unevaluatedItems": Case(schema: #"{"type":"array","prefixItems":[{}],"unevaluatedItems":false}"#, valid: "[1]", invalid: "[1,2]"),
    ]

    /// format → a valid and an invalid string (without quotes).
    static let formats: [String: (valid: String, invalid: String)] = [
        "date": ("2024-02-29", "2023-02-29"),
        "time": ("12:30:00Z", "25:00:00Z"),
        "date-time": ("2024-01-01T12:00:00Z", "2024-01-01 12:00:00Z"),
        "duration": ("P1DT2H", "P1H"),
        "email": ("a@example.com", "a@@example.com"),
        "hostname": ("example.com", "-bad.example.com"),
        "ipv4": ("192.168.0.1", "256.1.1.1"),
        "ipv6": ("::1", ":::1"),
        "uuid": ("123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b"),
        "uri": ("https://example.com/a?b#c", "example com"),
        "uri-reference": ("/a/b?c", "a b"),
        "iri": ("https://例え.jp/パス", "例え"),
        "iri-reference": ("/パス?q", "a b"),
        "uri-template": ("http://example.com/{id}{?q,lang}", "http://example.com/{id"),
        "json-pointer": ("/a/b~0", "a/b"),
        "relative-json-pointer": ("1/a", "/a"),
    ]

    /// The backticked items of the README line `- **<label>**: `a`, `b` …`.
    static func readmeList(_ label: String) throws -> [String] {
        let readme = try String(contentsOf: SharedData.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let prefix = "- **\(label)**:"
        guard let line = readme.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            Issue.record("README.md has no line starting with '\(prefix)'")
            return []
        }
        return line.dropFirst(prefix.count).split(separator: "`", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test func everyListedKeywordIsEnforced() throws {
        let listed = try Self.readmeList("JSON Schema keywords")
        #expect(Set(listed) == Set(Self.keywords.keys),
                "README and this test's table differ: README only \(Set(listed).subtracting(Self.keywords.keys).sorted()), table only \(Set(Self.keywords.keys).subtracting(listed).sorted())")
        for keyword in listed {
            guard let c = Self.keywords[keyword] else { continue }
            let grammar = try Grammar(jsonSchema: c.schema, options: .recognition)
            #expect(Replay.accepts(grammar, c.valid), "\(keyword): \(c.schema) should admit \(c.valid)")
            #expect(!Replay.accepts(grammar, c.invalid), "\(keyword): \(c.schema) should reject \(c.invalid)")
        }
    }

    @Test func everyKeywordTheCompilerHandlesIsListed() throws {
        let listed = Set(try Self.readmeList("JSON Schema keywords"))
        let source = try String(contentsOf: SharedData.packageRoot.appendingPathComponent(
            "Sources/Grammar/Schema/JSONSchemaCompiler.swift"), encoding: .utf8)
        var handled: Set<String> = []
        for line in source.split(separator: "\n") {
            let trimmed = line.drop(while: { $0 == " " })
            guard trimmed.hasPrefix("case \"") else { continue }
            for (i, part) in trimmed.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            where i % 2 == 1 && !part.hasPrefix("$loom.") {
                handled.insert(String(part))
            }
        }
        #expect(!handled.isEmpty, "no keyword cases found in JSONSchemaCompiler.swift")
        #expect(handled.isSubset(of: listed), "keywords the compiler handles but README omits: \(handled.subtracting(listed).sorted())")
    }

    @Test func everyListedFormatIsEnforced() throws {
        let listed = try Self.readmeList("JSON Schema formats")
        #expect(Set(listed) == Set(Self.formats.keys))
        for format in listed {
            guard let c = Self.formats[format] else { continue }
            // Formats enforced as a canonical subset (hostname) compile for generation only.
            let options = JSONSchemaFormats.canonicalSubsetOnly.contains(format)
                ? JSONSchemaOptions(whitespace: true, schemaOrder: false) : JSONSchemaOptions.recognition
            let grammar = try Grammar(jsonSchema: #"{"type":"string","format":"\#(format)"}"#, options: options)
            #expect(Replay.accepts(grammar, "\"\(c.valid)\""), "format \(format) should admit \(c.valid)")
            #expect(!Replay.accepts(grammar, "\"\(c.invalid)\""), "format \(format) should reject \(c.invalid)")
            #expect(JSONSchemaFormats.regex(format) != nil)
        }
        for unsupported in JSONSchemaFormats.unsupported {
            #expect(!listed.contains(unsupported), "README lists \(unsupported), which Loom refuses")
        }
    }
}
