@testable import ChatTemplate
import LoomJSON
import Testing

/// The filter and test tables are the single source of the names a template may use: the
/// compile-time check, the `filter`/`test` tests and dispatch all agree with them, and together
/// with the unsupported filters they cover Jinja2's built-ins exactly.
@Suite struct ChatTemplateNameTableTests {
    /// Jinja2 3.1's `DEFAULT_FILTERS` plus Hugging Face's `tojson`.
    static let jinjaFilters: Set<String> = [
        "abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e", "escape",
        "filesizeformat", "first", "float", "forceescape", "format", "groupby", "indent", "int", "items", "join",
        "last", "length", "list", "lower", "map", "max", "min", "pprint", "random", "reject", "rejectattr",
        "replace", "reverse", "round", "safe", "select", "selectattr", "slice", "sort", "string", "striptags",
        "sum", "title", "tojson", "trim", "truncate", "unique", "upper", "urlencode", "urlize", "wordcount",
        "wordwrap", "xmlattr",
    ]

    /// Jinja2 3.1's `DEFAULT_TESTS`.
    static let jinjaTests: Set<String> = [
        "defined", "undefined", "none", "boolean", "false", "true", "integer", "float", "number", "string",
        "mapping", "iterable", "sequence", "callable", "sameas", "escaped", "odd", "even", "divisibleby",
        "lower", "upper", "in", "eq", "equalto", "==", "ne", "!=", "lt", "lessthan", "<", "le", "<=", "gt",
        "greaterthan", ">", "ge", ">=", "filter", "test",
    ]

    static let now = TemplateDateTime(year: 2026, month: 11, day: 30)

    func render(_ source: String) throws(TemplateError) -> String {
        try ChatTemplate(source: source).render(context: JSONObject(), now: Self.now)
    }

    @Test func implementedAndUnsupportedFiltersAreJinjasBuiltins() {
        let implemented = Set(TemplateInterpreter.filters.keys)
        #expect(implemented.isDisjoint(with: TemplateInterpreter.unsupportedFilters))
        #expect(implemented.union(TemplateInterpreter.unsupportedFilters) == Self.jinjaFilters)
        #expect(Set(TemplateInterpreter.tests.keys) == Self.jinjaTests)
    }

    @Test func theFilterAndTestTestsReadTheTables() throws {
        for name in TemplateInterpreter.filters.keys.sorted() {
            #expect(try render("{{ '\(name)' is filter }}") == "True", "\(name)")
        }
        for name in TemplateInterpreter.unsupportedFilters.sorted() {
            #expect(try render("{{ '\(name)' is filter }}") == "False", "\(name)")
        }
        for name in TemplateInterpreter.tests.keys.sorted() {
            #expect(try render("{{ '\(name)' is test }}") == "True", "\(name)")
        }
        #expect(try render("{{ 'frob' is filter }}{{ 'frob' is test }}") == "FalseFalse")
    }

    @Test func unsupportedFiltersCompileAndFailWhenTheyRun() throws {
        for name in TemplateInterpreter.unsupportedFilters.sorted() {
            let template = try ChatTemplate(source: "{{ [1] | \(name) }}")
            #expect(throws: TemplateError(.runtime, "the '\(name)' filter is not supported by Loom's template engine")) {
                try template.render(context: JSONObject(), now: Self.now)
            }
        }
        #expect(throws: TemplateError(.assertion, "No filter named 'frob'.")) { try ChatTemplate(source: "{{ 1 | frob }}") }
        #expect(throws: TemplateError(.runtime, "No filter named 'frob' found.")) {
            try render("{% if true %}{{ 1 | frob }}{% endif %}")
        }
        #expect(throws: TemplateError(.runtime, "No test named 'frob' found.")) {
            try render("{% if true %}{{ 1 is frob }}{% endif %}")
        }
    }

    @Test func comparisonTestsNeedTheirOperand() {
        for name in ["eq", "<", "divisibleby", "sameas", "in"] {
            #expect(throws: TemplateError(.type, "test '\(name)' takes one argument")) {
                try render("{{ [1] | select('\(name)') | list }}")
            }
        }
    }
}
