/// Jinja2's tests (`x is name`), with Python's notion of each type.
extension TemplateInterpreter {
    /// A test: `value is name(operand)`, run by `interpreter`.
    typealias Test = @Sendable (_ interpreter: TemplateInterpreter, _ value: Value, _ operand: TestOperand) throws(TemplateError) -> Bool

    /// Every test Loom implements, by the names templates use (Jinja2's aliases included). The
    /// compile-time check, the `test` test and `applyTest` all read this table, so a name is
    /// accepted exactly when it runs.
    static let tests: [String: Test] = [
        "defined": { _, value, _ in !value.isUndefined },
        "undefined": { _, value, _ in value.isUndefined },
        "none": { _, value, _ in value.isNone },
        "boolean": { _, value, _ in if case .bool = value { true } else { false } },
        "true": { _, value, _ in if case .bool(true) = value { true } else { false } },
        "false": { _, value, _ in if case .bool(false) = value { true } else { false } },
        "integer": { _, value, _ in if case .int = value { true } else { false } },
        "float": { _, value, _ in if case .double = value { true } else { false } },
        "number": { _, value, _ in value.numeric != nil },
        "string": { _, value, _ in value.stringValue != nil },
        "escaped": { _, value, _ in if case .markup = value { true } else { false } },
        "mapping": { _, value, _ in if case .dict = value { true } else { false } },
        "iterable": { _, value, _ in isIterable(value) },
        "sequence": { _, value, _ in isSequence(value) },
        "callable": { _, value, _ in isCallable(value) },
        "sameas": { _, value, operand throws(TemplateError) in isSame(value, try operand.value()) },
        "odd": { interpreter, value, _ throws(TemplateError) in try interpreter.remainderOfHalving(value, is: 1) },
        "even": { interpreter, value, _ throws(TemplateError) in try interpreter.remainderOfHalving(value, is: 0) },
        "divisibleby": { interpreter, value, operand throws(TemplateError) in
            !(try interpreter.binary(.modulo, value, try operand.value())).truthy
        },
        "lower": { _, value, _ in PythonString.isLowerString(PythonFormat.str(value)) },
        "upper": { _, value, _ in PythonString.isUpperString(PythonFormat.str(value)) },
        "in": { interpreter, value, operand throws(TemplateError) in try interpreter.contains(try operand.value(), value) },
        "eq": equal, "equalto": equal, "==": equal,
        "ne": notEqual, "!=": notEqual,
        "lt": less, "lessthan": less, "<": less,
        "le": lessOrEqual, "<=": lessOrEqual,
        "gt": greater, "greaterthan": greater, ">": greater,
        "ge": greaterOrEqual, ">=": greaterOrEqual,
        "filter": { _, value, _ in value.stringValue.map { TemplateInterpreter.filters[$0] != nil } ?? false },
        "test": { _, value, _ in value.stringValue.map { TemplateInterpreter.tests[$0] != nil } ?? false },
    ]

    func applyTest(_ name: String, _ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Bool {
        guard let test = TemplateInterpreter.tests[name] else {
            throw TemplateError.runtime("No test named '\(name)' found.")
        }
        return try test(self, value, TestOperand(test: name, arguments: args))
    }

    private static let equal: Test = { _, value, operand throws(TemplateError) in Value.pyEqual(value, try operand.value()) }
    private static let notEqual: Test = { _, value, operand throws(TemplateError) in !Value.pyEqual(value, try operand.value()) }
    private static let less: Test = { _, value, operand throws(TemplateError) in
        try Value.pyCompare(value, try operand.value(), "<") < 0
    }
    private static let lessOrEqual: Test = { _, value, operand throws(TemplateError) in
        try Value.pyCompare(value, try operand.value(), "<=") <= 0
    }
    private static let greater: Test = { _, value, operand throws(TemplateError) in
        try Value.pyCompare(value, try operand.value(), ">") > 0
    }
    private static let greaterOrEqual: Test = { _, value, operand throws(TemplateError) in
        try Value.pyCompare(value, try operand.value(), ">=") >= 0
    }

    private static func isIterable(_ value: Value) -> Bool {
        switch value {
        case .string, .markup, .list, .tuple, .dict, .range, .view, .generator, .undefined: return true
        default: return false
        }
    }

    private static func isSequence(_ value: Value) -> Bool {
        switch value {
        case .string, .markup, .list, .tuple, .dict, .range, .undefined: return true
        default: return false
        }
    }

    private static func isCallable(_ value: Value) -> Bool {
        switch value {
        case .callable, .undefined: return true
        default: return false
        }
    }

    /// Python's `is`: identity for objects, and CPython's interning for `None`, booleans and
    /// the small integers (-5…256).
    private static func isSame(_ value: Value, _ other: Value) -> Bool {
        switch (value, other) {
        case (.namespace(let a), .namespace(let b)): return a === b
        case (.generator(let a), .generator(let b)): return a === b
        case (.none, .none): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b && a >= -5 && a <= 256
        default: return false
        }
    }

    /// Jinja2's `odd`/`even`: `value % 2 == 1` / `value % 2 == 0`, with Python's `%` (floats included).
    private func remainderOfHalving(_ value: Value, is remainder: Int) throws(TemplateError) -> Bool {
        Value.pyEqual(try binary(.modulo, value, .int(2)), .int(remainder))
    }
}

/// The one argument a comparison test takes (`x is divisibleby(3)`, `x is eq y`), read only by
/// the tests that need it, so a missing one is an error only for them.
struct TestOperand {
    /// The test's name, for the error message.
    let test: String
    let arguments: EvaluatedArguments

    /// The operand, whatever Jinja2 names the parameter (`other`, `value`, `num`, `seq`).
    func value() throws(TemplateError) -> Value {
        guard let v = arguments.value(0, "other") ?? arguments.value(0, "value") ?? arguments.value(0, "num") ?? arguments.value(0, "seq") else {
            throw TemplateError.type("test '\(test)' takes one argument")
        }
        return v
    }
}
