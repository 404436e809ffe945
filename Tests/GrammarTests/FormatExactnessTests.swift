import LoomJSON
import Testing
@testable import Grammar

/// Formats and vocabularies that must be exact in recognition: a compiled schema accepts exactly the
/// valid instances, or strict compilation refuses it with a typed error naming keyword and pointer.
@Suite struct FormatExactnessTests {
    static func string(_ format: String, _ options: JSONSchemaOptions = .recognition) throws -> Grammar {
        try Grammar(jsonSchema: #"{"type":"string","format":"\#(format)"}"#, options: options)
    }

    /// RFC 3339 §5.7: second 60 only where the time is 23:59:60 UTC once the offset is applied.
    @Test func leapSecondsFollowTheOffset() throws {
        let time = try Self.string("time")
        for valid in ["23:59:60Z", "23:59:60z", "23:59:60+00:00", "23:59:60-00:00", "01:29:60+01:30", "23:29:60+23:30",
                      "15:59:60-08:00", "00:29:60-23:30", "00:00:60+00:01", "23:58:60-00:01", "15:59:60.123-08:00"] {
            #expect(Replay.accepts(time, "\"\(valid)\""), "\(valid)")
        }
        for invalid in ["22:59:60Z", "23:58:60Z", "22:59:60+00:00", "23:59:60+01:00", "23:59:60+00:30", "23:59:60-01:00",
                        "23:59:60-00:30", "00:00:60Z", "23:59:61Z", "24:59:60+01:00", "12:00:60+12:00"] {
            #expect(!Replay.accepts(time, "\"\(invalid)\""), "\(invalid)")
        }
        let dateTime = try Self.string("date-time")
        #expect(Replay.accepts(dateTime, #""1998-12-31T15:59:60.123-08:00""#))
        #expect(Replay.accepts(dateTime, #""1998-12-31T23:59:60Z""#))
        #expect(!Replay.accepts(dateTime, #""1998-12-31T23:59:60+01:00""#))
        #expect(!Replay.accepts(dateTime, #""2016-12-31T24:59:60+01:00""#))
    }

    /// Every local time has exactly one positive and one negative offset that puts it at 23:59 UTC.
    @Test func leapSecondOffsetsAreExhaustive() throws {
        let dfas = try ([JSONSchemaFormats.time] + JSONSchemaFormats.constraints("time")).map {
            try RegexCompiler.compile($0, mode: .fullMatch, keyword: "format", pointer: "")
        }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        for local in stride(from: 0, to: 1440, by: 7) {
            for offset in stride(from: -1439, through: 1439, by: 13) {
                let utc = ((local - offset) % 1440 + 1440) % 1440
                let sign = offset < 0 ? "-" : "+"
                let text = "\(two(local / 60)):\(two(local % 60)):60\(sign)\(two(abs(offset) / 60)):\(two(abs(offset) % 60))"
                #expect(dfas.allSatisfy { $0.matches(Array(text.utf8)) } == (utc == 1439), "\(text)")
            }
        }
    }

    /// IDNA A-labels need Punycode decoding and the IDNA tables: strict recognition refuses
    /// `hostname`; lenient keeps the A-label-free subset (with a warning); generation uses it.
    @Test func hostnameIsRefusedInRecognitionAndASubsetInGeneration() throws {
        let error = #expect(throws: GrammarError.self) { try Self.string("hostname") }
        #expect(error?.kind == .unsupported && error?.keyword == "format" && error?.pointer == "/format")
        var lenient = JSONSchemaOptions.recognition
        lenient.lenient = true
        let subset = try Self.string("hostname", lenient)
        #expect(!subset.warnings.isEmpty)
        let generation = try Self.string("hostname", JSONSchemaOptions())
        for g in [subset, generation] {
            #expect(Replay.accepts(g, #""www.example.com""#))
            #expect(Replay.accepts(g, #""a--b.com""#))
            #expect(!Replay.accepts(g, #""xn--X""#))
            #expect(!Replay.accepts(g, #""xn--9n2bp8q.xn--9t4b11yi5a""#))  // valid, but outside the subset
            #expect(!Replay.accepts(g, #""-hostname""#))
        }
    }

    @Test func irisAndUriTemplates() throws {
        let iri = try Self.string("iri")
        for valid in ["http://ƒøø.ßår/?∂éœ=πîx#πîüx", "http://[2001:db8::1]", "http://[V1.fe]", "urn:example:resource",
                      "http://ƒøø.ßår/\u{10300}", "http://ƒøø.ßår/?q=\u{F0000}"] {
            #expect(Replay.accepts(iri, JSONValue.string(valid).serialized()), "\(valid)")
        }
        for invalid in ["/abc", "âππ", "http://[::ffff:192.168.0.01]", "http://2001:0db8:85a3:0000:0000:8a2e:0370:7334",
                        "http://ƒøø.ßår/\u{F0000}", "http://a/\u{85}"] {
            #expect(!Replay.accepts(iri, JSONValue.string(invalid).serialized()), "\(invalid)")
        }
        let reference = try Self.string("iri-reference")
        #expect(Replay.accepts(reference, #""âππ""#))
        #expect(!Replay.accepts(reference, ##""#ƒräg\\mênt""##))
        let template = try Self.string("uri-template")
        for valid in ["", "http://example.com/dictionary/{term:1}/{term}", "{+var}", "{a.b}", "{%41}", "{v:1000}", "{x,y*}", "a'b", "a😀b"] {
            #expect(Replay.accepts(template, JSONValue.string(valid).serialized()), "\(valid)")
        }
        for invalid in ["{}", "{a,,b}", "{v:0}", "{v:10000}", "foo}bar", "{a..b}", "{v:01}", "a b", "{a,}", "{var=def}", "{,+var}", "{term"] {
            #expect(!Replay.accepts(template, JSONValue.string(invalid).serialized()), "\(invalid)")
        }
    }

    /// A metaschema whose `$vocabulary` leaves out validation turns validation keywords into
    /// annotations; applicators still apply. Unknown required vocabularies are refused.
    @Test func vocabulariesDecideWhichKeywordsApply() throws {
        let meta = try JSONValue(parsing: #"""
            {"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"http://example.test/no-validation",
             "$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/applicator":true,"https://json-schema.org/draft/2020-12/vocab/core":true}}
            """#)
        var options = JSONSchemaOptions.recognition
        options.remoteDocuments = ["http://example.test/no-validation": meta]
        let g = try Grammar(jsonSchema: #"""
            {"$schema":"http://example.test/no-validation","properties":{"bad":false,"n":{"minimum":10,"type":"string"},
             "minimum":{"not":{}}}}
            """#, options: options)
        #expect(Replay.accepts(g, #"{"n":1}"#))
        #expect(Replay.accepts(g, #"{"n":20}"#))
        #expect(!Replay.accepts(g, #"{"bad":1}"#))
        #expect(!Replay.accepts(g, #"{"minimum":1}"#))  // a property named like a keyword is still a property

        // Without the applicator vocabulary, `properties` is an annotation; `type` still applies.
        let noApplicator = try JSONValue(parsing: #"{"$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/validation":true,"https://json-schema.org/draft/2020-12/vocab/core":true}}"#)
        options.remoteDocuments = ["http://example.test/no-applicator": noApplicator]
        let plain = try Grammar(jsonSchema: #"{"$schema":"http://example.test/no-applicator","type":"object","properties":{"a":false}}"#, options: options)
        #expect(Replay.accepts(plain, #"{"a":1}"#))
        #expect(!Replay.accepts(plain, "[]"))

        let required = try JSONValue(parsing: #"{"$vocabulary":{"https://example.test/vocab/custom":true,"https://json-schema.org/draft/2020-12/vocab/applicator":true}}"#)
        options.remoteDocuments = ["http://example.test/custom": required]
        #expect(throws: GrammarError.self) { try Grammar(jsonSchema: #"{"$schema":"http://example.test/custom"}"#, options: options) }
    }
}
