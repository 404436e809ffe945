/// Jinja2's tests (`x is name`), with Python's notion of each type.
extension TemplateInterpreter {
    static let testNames: Set<String> = [
        "defined", "undefined", "none", "boolean", "false", "true", "integer", "float", "number", "string",
        "mapping", "iterable", "sequence", "callable", "sameas", "escaped", "odd", "even", "divisibleby",
        "lower", "upper", "in", "eq", "equalto", "==", "ne", "!=", "lt", "lessthan", "<", "le", "<=", "gt",
        "greaterthan", ">", "ge", ">=", "filter", "test",
    ]

    func applyTest(_ name: String, _ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Bool {
        func other() throws(TemplateError) -> Value {
            guard let v = args.value(0, "other") ?? args.value(0, "value") ?? args.value(0, "num") ?? args.value(0, "seq") else {
                throw TemplateError.type("test '\(name)' takes one argument")
            }
            return v
        }
        switch name {
        case "defined": return !value.isUndefined
        case "undefined": return value.isUndefined
        case "none": return value.isNone
        case "boolean": if case .bool = value { return true }; return false
        case "true": if case .bool(true) = value { return true }; return false
        case "false": if case .bool(false) = value { return true }; return false
        case "integer": if case .int = value { return true }; return false
        case "float": if case .double = value { return true }; return false
        case "number": return value.numeric != nil
        case "string": return value.stringValue != nil
        case "escaped": if case .markup = value { return true }; return false
        case "mapping": if case .dict = value { return true }; return false
        case "iterable":
            switch value {
            case .string, .markup, .list, .tuple, .dict, .range, .view, .generator, .undefined: return true
            default: return false
            }
        case "sequence":
            switch value {
            case .string, .markup, .list, .tuple, .dict, .range, .undefined: return true
            default: return false
            }
        case "callable":
            switch value {
            case .callable, .undefined: return true
            default: return false
            }
        case "sameas":
            let o = try other()
            switch (value, o) {
            case (.namespace(let a), .namespace(let b)): return a === b
            case (.generator(let a), .generator(let b)): return a === b
            case (.none, .none): return true
            case (.bool(let a), .bool(let b)): return a == b
            case (.int(let a), .int(let b)): return a == b && a >= -5 && a <= 256
            default: return false
            }
        case "odd", "even":
            // Jinja2: `value % 2 == 1` / `value % 2 == 0`, with Python's `%` (floats included).
            let r = try binary(.modulo, value, .int(2))
            return Value.pyEqual(r, .int(name == "odd" ? 1 : 0))
        case "divisibleby":
            let r = try binary(.modulo, value, try other())
            return !r.truthy
        case "lower": return PythonString.isLowerString(PythonFormat.str(value))
        case "upper": return PythonString.isUpperString(PythonFormat.str(value))
        case "in": return try contains(try other(), value)
        case "eq", "equalto", "==": return Value.pyEqual(value, try other())
        case "ne", "!=": return !Value.pyEqual(value, try other())
        case "lt", "lessthan", "<": return try Value.pyCompare(value, try other(), "<") < 0
        case "le", "<=": return try Value.pyCompare(value, try other(), "<=") <= 0
        case "gt", "greaterthan", ">": return try Value.pyCompare(value, try other(), ">") > 0
        case "ge", ">=": return try Value.pyCompare(value, try other(), ">=") >= 0
        case "filter":
            guard let n = value.stringValue else { return false }
            return TemplateInterpreter.filterNames.contains(n)
        case "test":
            guard let n = value.stringValue else { return false }
            return TemplateInterpreter.testNames.contains(n)
        default:
            throw TemplateError.runtime("No test named '\(name)' found.")
        }
    }
}
