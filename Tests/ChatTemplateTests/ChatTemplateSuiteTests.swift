import ChatTemplate
import Foundation
import LoomJSON
import Testing

/// The shared conformance suite: 45 real chat templates × 10 conversations, expected outputs
/// rendered by Python Jinja2 in Hugging Face's environment.
@Suite struct ChatTemplateSuiteTests {
    struct Case {
        let template: String
        let conversation: String
        let context: JSONObject
        let expected: String?
        let error: String?
    }

    static let fixedNow = TemplateDateTime(year: 2026, month: 11, day: 30)

    static func loadCases() throws -> [Case] {
        let path = SharedData.path("chat-templates/chat-templates-dev.jsonl")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var cases: [Case] = []
        for line in text.split(separator: "\n") where !line.isEmpty {
            let json = try JSONValue(parsing: String(line))
            guard let template = json["template"]?.stringValue, let conversation = json["conversation"]?.stringValue,
                  let context = json["context"]?.objectValue else {
                Issue.record("malformed case line")
                continue
            }
            cases.append(Case(template: template, conversation: conversation, context: context,
                              expected: json["expected"]?.stringValue, error: json["error"]?.stringValue))
        }
        return cases
    }

    /// The first difference between two strings, with some context on either side.
    static func diffWindow(expected: String, actual: String) -> String {
        let e = Array(expected.unicodeScalars), a = Array(actual.unicodeScalars)
        var i = 0
        while i < e.count && i < a.count && e[i] == a[i] { i += 1 }
        let lo = max(0, i - 80)
        func excerpt(_ s: [Unicode.Scalar]) -> String {
            var v = String.UnicodeScalarView()
            v.append(contentsOf: s[min(lo, s.count)..<min(s.count, i + 80)])
            return String(v).debugDescription
        }
        return "first difference at scalar \(i) (expected \(e.count) scalars, got \(a.count))\n  expected: …\(excerpt(e))…\n  actual:   …\(excerpt(a))…"
    }

    @Test func everyCaseMatchesJinja2() throws {
        let cases = try ChatTemplateSuiteTests.loadCases()
        #expect(cases.count == 450)
        var templates: [String: Result<ChatTemplate, TemplateError>] = [:]
        var passed = 0
        var failures: [String] = []
        for c in cases {
            let parsed: Result<ChatTemplate, TemplateError>
            if let cached = templates[c.template] {
                parsed = cached
            } else {
                let source = try String(contentsOfFile: SharedData.path("chat-templates/templates/\(c.template)"), encoding: .utf8)
                do { parsed = .success(try ChatTemplate(source: source)) } catch { parsed = .failure(error) }
                templates[c.template] = parsed
            }
            let label = "\(c.template) / \(c.conversation)"
            let template: ChatTemplate
            switch parsed {
            case .success(let t): template = t
            case .failure(let e):
                failures.append("\(label): template failed to parse: \(e)")
                continue
            }
            do {
                let output = try template.render(context: c.context, now: ChatTemplateSuiteTests.fixedNow)
                if let expected = c.expected {
                    if output == expected && output.utf8.elementsEqual(expected.utf8) {
                        passed += 1
                    } else {
                        failures.append("\(label): output differs\n" + ChatTemplateSuiteTests.diffWindow(expected: expected, actual: output))
                    }
                } else {
                    failures.append("\(label): rendered, but Jinja2 raised \(c.error ?? "an error")")
                }
            } catch {
                if let expectedError = c.error {
                    // raise_exception messages are template text: they must match exactly.
                    if expectedError.hasPrefix("TemplateError: ") && "TemplateError: \(error.message)" != expectedError {
                        failures.append("\(label): raised \(error), expected \(expectedError)")
                    } else {
                        passed += 1
                    }
                } else {
                    failures.append("\(label): raised \(error)")
                }
            }
        }
        print("chat-template suite: \(passed)/\(cases.count) cases pass")
        for f in failures { Issue.record(Comment(rawValue: f)) }
        #expect(passed == cases.count)
    }
}
