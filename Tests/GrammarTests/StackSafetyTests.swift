#if canImport(Glibc)
import Glibc
#endif
import LoomJSON
import LoomSupport
import Testing
@testable import Grammar

/// Compilation recurses with nesting; on any thread it must end in a grammar or a typed error,
/// never a stack overflow. Each case runs in a task (the cooperative pool's threads) and on a
/// thread with a 512 KiB stack.
@Suite struct StackSafetyTests {
    /// Compiles on a fresh thread with a 512 KiB stack and returns the error, if any.
    static func onSmallStack(_ body: @escaping @Sendable () throws(GrammarError) -> Grammar) -> Result<Int, GrammarError> {
        do {
            return try DedicatedThread.runAndWait(stackSize: 512 << 10) { () -> Result<Int, GrammarError> in
                do throws(GrammarError) { return .success(try body().nodeCount) } catch { return .failure(error) }
            }
        } catch {
            Issue.record("no thread with a small stack: \(error)")
            return .success(-1)
        }
    }

    /// Either outcome is fine; an error must be the typed nesting limit (or the JSON parser's).
    static func check(_ r: Result<Int, GrammarError>, allowSyntax: Bool = false) {
        switch r {
        case .success(let nodes): #expect(nodes > 0)
        case .failure(let e):
            #expect(e.kind == .limit || (allowSyntax && e.kind == .syntax), "\(e)")
        }
    }

    static func compile(_ text: String) -> Result<Int, GrammarError> {
        do throws(GrammarError) { return .success(try Grammar(jsonSchema: text).nodeCount) } catch { return .failure(error) }
    }

    static func nestedItems(_ depth: Int) -> String {
        String(repeating: #"{"type":"array","items":"#, count: depth) + #"{"type":"integer"}"# + String(repeating: "}", count: depth)
    }

    static func nestedProperties(_ depth: Int) -> String {
        String(repeating: #"{"type":"object","properties":{"a":"#, count: depth) + "true" + String(repeating: "}}", count: depth)
    }

    static func refChain(_ length: Int) -> String {
        var defs: [String] = []
        for k in 0..<length {
            let next = k + 1 < length ? "{\"$ref\":\"#/$defs/d\(k + 1)\"}" : "{\"type\":\"integer\"}"
            defs.append("\"d\(k)\":{\"type\":\"array\",\"items\":\(next)}")
        }
        return "{\"$ref\":\"#/$defs/d0\",\"$defs\":{" + defs.joined(separator: ",") + "}}"
    }

    @Test func tenThousandNestedArraysAndObjects() async throws {
        // Deeper than schemas may nest: the typed limit, naming where.
        for text in [Self.nestedItems(10_000), Self.nestedProperties(10_000)] {
            for r in [Self.compile(text), Self.onSmallStack { () throws(GrammarError) in try Grammar(jsonSchema: text) }] {
                let e = try #require(r.failure, "expected the depth limit")
                #expect(e.kind == .limit)
                #expect(e.pointer.hasPrefix("/items/items/") || e.pointer.hasPrefix("/properties/a/properties/a/"), "\(e.pointer.prefix(40))")
            }
        }
        // As deep as schemas may nest: a grammar, or the nesting limit on a small stack.
        for text in [Self.nestedItems(120), Self.nestedProperties(60)] {
            Self.check(Self.compile(text))
            Self.check(Self.onSmallStack { () throws(GrammarError) in try Grammar(jsonSchema: text) })
        }
    }

    @Test func schemaValueDeeperThanTheLimitIsRefusedWithItsPointer() async throws {
        var v: JSONValue = .object(JSONObject([("type", .string("integer"))]))
        for _ in 0..<200 { v = .object(JSONObject([("type", .string("array")), ("items", v)])) }
        let value = v
        let r = Self.onSmallStack { () throws(GrammarError) in try Grammar(jsonSchema: value) }
        let e = try #require(r.failure, "expected the depth limit")
        #expect(e.kind == .limit)
        #expect(e.pointer.hasPrefix("/items/items/"))
    }

    @Test func longRefChain() async {
        let text = Self.refChain(10_000)
        let r = Self.compile(text)
        Self.check(r)
        if case .failure(let e) = r { #expect(e.pointer.hasPrefix("/$defs/d")) }
        Self.check(Self.onSmallStack { () throws(GrammarError) in try Grammar(jsonSchema: text) })
    }

    @Test func deeplyNestedRegexAndGBNF() async throws {
        let regex = String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
        let gbnf = "root ::= " + String(repeating: "(", count: 10_000) + "\"a\"" + String(repeating: ")", count: 10_000) + "\n"
        let stacked = "a" + String(repeating: "{1}", count: 10_000)
        for r in [
            Result { () throws(GrammarError) in try Grammar(regex: regex).nodeCount },
            Result { () throws(GrammarError) in try Grammar(gbnf: gbnf).nodeCount },
            Result { () throws(GrammarError) in try Grammar(regex: stacked).nodeCount },
            Self.onSmallStack { () throws(GrammarError) in try Grammar(regex: regex) },
            Self.onSmallStack { () throws(GrammarError) in try Grammar(gbnf: gbnf) },
        ] {
            let e = try #require(r.failure, "expected the nesting limit")
            #expect(e.kind == .limit)
        }
        // Ordinary nesting still compiles.
        #expect(throws: Never.self) { try Grammar(regex: "((a|b)(c(d)?))+") }
        #expect(throws: Never.self) { try Grammar(gbnf: "root ::= ((\"a\" | \"b\") (\"c\")*)+\n") }
    }
}

private extension Result {
    /// The error of a failure, nil for a success.
    var failure: Failure? { if case .failure(let e) = self { return e }; return nil }
}
