import Foundation
import LoomJSON
import Testing
@testable import Grammar

/// Conformance on real schemas, replayed at byte level over the test vocabulary.
@Suite struct SchemaSuiteTests {
    static let verbose = ProcessInfo.processInfo.environment["LOOM_GRAMMAR_VERBOSE"] != nil

    /// The JSON-Schema-Test-Suite remotes, addressed as `http://localhost:1234/…`.
    static func remotes() throws -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        let dir = SharedData.root.appendingPathComponent("grammar/jsts/remotes")
        guard let e = FileManager.default.enumerator(atPath: dir.path) else { return out }
        for case let rel as String in e where rel.hasSuffix(".json") {
            let text = try String(contentsOfFile: dir.appendingPathComponent(rel).path, encoding: .utf8)
            out["http://localhost:1234/" + rel] = try JSONValue(parsing: text)
        }
        return out
    }

    @Test func maskbenchDevSubset() throws {
        let lines = try SharedData.text("grammar/maskbench-dev.jsonl").split(separator: "\n")
        let limit = Int(ProcessInfo.processInfo.environment["LOOM_MASKBENCH_LIMIT"] ?? "") ?? 200
        var withTests = 0, compiled = 0, passed = 0, invalidAccepted = 0, validRejected = 0
        var errors: [String: Int] = [:]
        for line in lines.prefix(limit) {
            guard case .object(let row) = try JSONValue(parsing: String(line)),
                  let schema = row["schema"], case .array(let tests) = row["tests"] ?? .array([]) else { continue }
            let id = row["id"]?.stringValue ?? "?"
            if Self.verbose { FileHandle.standardError.write("SCHEMA \(id)\n".data(using: .utf8)!) }
            if !tests.isEmpty { withTests += 1 }
            let g: Grammar
            do { g = try Grammar(jsonSchema: schema, options: .recognition) } catch {
                errors[error.keyword, default: 0] += 1
                if Self.verbose { print("COMPILE \(id): \(error)") }
                continue
            }
            compiled += 1
            var ok = true
            for t in tests {
                guard case .object(let tc) = t, let text = tc["text"]?.stringValue, let valid = tc["valid"]?.boolValue else { continue }
                let accepted = Replay.accepts(g, text)
                if accepted != valid {
                    ok = false
                    if valid { validRejected += 1 } else { invalidAccepted += 1 }
                    if Self.verbose { print("WRONG \(id) valid=\(valid): \(text.prefix(300))") }
                }
            }
            if ok && !tests.isEmpty { passed += 1 }
        }
        print("maskbench-dev first \(limit): with_tests \(withTests), compiled \(compiled), passed \(passed), invalid_accepted \(invalidAccepted), valid_rejected \(validRejected), errors \(errors)")
        #expect(invalidAccepted == 0)
        #expect(Double(passed) >= 0.95 * Double(withTests))
    }

    @Test func jsonSchemaTestSuite() throws {
        let dir = SharedData.root.appendingPathComponent("grammar/jsts/draft2020-12")
        var files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.map { dir.appendingPathComponent($0).path }
        let fmt = dir.appendingPathComponent("optional/format")
        files += try FileManager.default.contentsOfDirectory(atPath: fmt.path).filter { $0.hasSuffix(".json") }.map { fmt.appendingPathComponent($0).path }
        // format.json treats format as an annotation; formats are scored on optional/format/ instead.
        files.removeAll { $0.hasSuffix("/draft2020-12/format.json") }
        var options = JSONSchemaOptions.recognition
        options.remoteDocuments = try Self.remotes()
        // Every group that compiles must agree with the suite on every instance (no expected
        // divergences): where Loom cannot be exact (IDNA A-labels in `hostname`), strict
        // recognition refuses the schema instead.
        var groups = 0, compiledGroups = 0, disagreements = 0, invalidAccepted = 0
        for file in files.sorted() {
            guard case .array(let gs) = try JSONValue(parsing: try String(contentsOfFile: file, encoding: .utf8)) else { continue }
            for grp in gs {
                guard case .object(let go) = grp, let schema = go["schema"], case .array(let cases) = go["tests"] ?? .array([]) else { continue }
                groups += 1
                let name = (file as NSString).lastPathComponent + ": " + (go["description"]?.stringValue ?? "")
                let g: Grammar
                do { g = try Grammar(jsonSchema: schema, options: options) } catch {
                    if Self.verbose { print("COMPILE \(name): \(error)") }
                    continue
                }
                compiledGroups += 1
                for c in cases {
                    guard case .object(let co) = c, let data = co["data"], let valid = co["valid"]?.boolValue else { continue }
                    let accepted = Replay.accepts(g, data.serialized())
                    if accepted && !valid { invalidAccepted += 1 }
                    if accepted != valid {
                        disagreements += 1
                        print("JSTS WRONG \(name) / \(co["description"]?.stringValue ?? ""): valid=\(valid) data=\(data.serialized().prefix(200))")
                    }
                }
            }
        }
        print("jsts: groups \(groups), compiled \(compiledGroups), disagreements \(disagreements), invalid accepted \(invalidAccepted)")
        #expect(disagreements == 0)
        #expect(invalidAccepted == 0)
        #expect(Double(compiledGroups) >= 0.94 * Double(groups))
    }
}

/// The schema the README's CLI tour uses compiles, and its grammar recognises exactly the
/// instances the schema allows (`loom grammar compile --schema` prints any schema's grammar).
@Suite struct CompileOneSchema {
    @Test func compileOneSchema() throws {
        let path = SharedData.packageRoot.appendingPathComponent("Examples/schemas/city.schema.json").path
        let g = try Grammar(jsonSchema: try String(contentsOfFile: path, encoding: .utf8), options: .recognition)
        #expect(Replay.accepts(g, #"{"name":"Paris","country":"France","population":2102650,"landmarks":["Eiffel Tower","Louvre"]}"#))
        #expect(!Replay.accepts(g, #"{"name":"Paris","country":"France","population":-1,"landmarks":["Louvre"]}"#))
        #expect(!Replay.accepts(g, #"{"name":"Paris","country":"France","population":1.5,"landmarks":["Louvre"]}"#))
        #expect(!Replay.accepts(g, #"{"name":"Paris","country":"France","population":1,"landmarks":[]}"#))
        #expect(!Replay.accepts(g, #"{"name":"Paris","country":"France","population":1,"landmarks":["a","b","c","d"]}"#))
        #expect(!Replay.accepts(g, #"{"name":"Paris","country":"France","population":1,"landmarks":["a"],"mayor":"x"}"#))
        #expect(!Replay.accepts(g, #"{"name":"Paris","population":1,"landmarks":["a"]}"#))
    }
}
