import ChatTemplate
import LoomJSON
import Testing

/// Interpreter features one at a time, against outputs produced by Python Jinja2.
@Suite struct ChatTemplateFeatureTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let template: String
        let context: JSONObject
        let expected: String?
        let error: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = ChatTemplateFeatureCases.jsonl.split(separator: "\n").compactMap { line in
        guard let json = try? JSONValue(parsing: String(line)), let name = json["name"]?.stringValue,
              let template = json["template"]?.stringValue, let context = json["context"]?.objectValue else { return nil }
        return Case(name: name, template: template, context: context,
                    expected: json["expected"]?.stringValue, error: json["error"]?.stringValue)
    }

    @Test func fixtureIsComplete() {
        #expect(ChatTemplateFeatureTests.cases.count == ChatTemplateFeatureCases.jsonl.split(separator: "\n").count)
        #expect(ChatTemplateFeatureTests.cases.count >= 84)
    }

    @Test(arguments: ChatTemplateFeatureTests.cases)
    func matchesJinja2(_ c: Case) throws {
        let now = TemplateDateTime(year: 2026, month: 11, day: 30)
        do {
            let output = try ChatTemplate(source: c.template).render(context: c.context, now: now)
            if let expected = c.expected {
                #expect(output.utf8.elementsEqual(expected.utf8),
                        "\(ChatTemplateSuiteTests.diffWindow(expected: expected, actual: output))")
            } else {
                Issue.record("rendered \(output.debugDescription), but Jinja2 raised \(c.error ?? "")")
            }
        } catch {
            guard let expectedError = c.error else {
                Issue.record("raised \(error)")
                return
            }
            if expectedError.hasPrefix("SyntaxError: ") {
                // Python's own compile error for the generated code (e.g. `break` outside a loop).
                #expect(error.kind == .syntax)
            } else {
                #expect("\(error.pythonClassName): \(error.message)" == expectedError)
            }
        }
    }
}
