/// A constant in template source.
enum Literal: Sendable {
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)

    var value: Value {
        switch self {
        case .none: return .none
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        }
    }
}

/// Arithmetic operators.
enum BinaryOperator: String, Sendable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", floorDivide = "//", modulo = "%", power = "**"
}

/// Comparison operators, including membership.
enum CompareOperator: String, Sendable {
    case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case contains = "in", notContains = "not in"
}

/// Arguments of a call, filter or test.
struct CallArguments: Sendable {
    var positional: [Expr] = []
    var keyword: [(String, Expr)] = []
    var star: Expr?
    var doubleStar: Expr?
}

/// An expression.
indirect enum Expr: Sendable {
    case literal(Literal)
    case name(String)
    case list([Expr])
    case tuple([Expr])
    case dict([(Expr, Expr)])
    /// `x.name`: attribute first, then item.
    case attribute(Expr, String)
    /// `x[key]`: item first, then attribute.
    case item(Expr, Expr)
    case slice(Expr, Expr?, Expr?, Expr?)
    case call(Expr, CallArguments)
    case filter(Expr, String, CallArguments)
    case test(Expr, String, CallArguments, negated: Bool)
    case negate(Expr)
    case plus(Expr)
    case not(Expr)
    case binary(BinaryOperator, Expr, Expr)
    case and(Expr, Expr)
    case or(Expr, Expr)
    case compare(Expr, [(CompareOperator, Expr)])
    case concat([Expr])
    case conditional(test: Expr, then: Expr, otherwise: Expr?)
}

/// The left side of `set` or the target of `for`.
enum AssignTarget: Sendable {
    case name(String)
    case names([String])
    /// `ns.attr` (namespace attribute assignment).
    case attribute(String, String)
}

/// A filter application in `{% filter %}` or block `{% set x | f %}`.
struct FilterCall: Sendable {
    let name: String
    let arguments: CallArguments
}

/// A `{% for %}` statement.
final class ForLoopNode: Sendable {
    let target: AssignTarget
    let iterable: Expr
    let condition: Expr?
    let body: [Node]
    let elseBody: [Node]
    let recursive: Bool
    init(target: AssignTarget, iterable: Expr, condition: Expr?, body: [Node], elseBody: [Node], recursive: Bool) {
        self.target = target
        self.iterable = iterable
        self.condition = condition
        self.body = body
        self.elseBody = elseBody
        self.recursive = recursive
    }
}

/// A `{% macro %}` definition.
final class MacroDefinition: Sendable {
    let name: String
    let parameters: [(String, Expr?)]
    let body: [Node]
    /// The body reads `varargs`, `kwargs` or `caller`, so the macro accepts them.
    let acceptsVarargs: Bool
    let acceptsKwargs: Bool
    let acceptsCaller: Bool
    init(name: String, parameters: [(String, Expr?)], body: [Node]) {
        self.name = name
        self.parameters = parameters
        self.body = body
        let used = TemplateNameScan.references(["varargs", "kwargs", "caller"], in: body)
        acceptsVarargs = used.contains("varargs")
        acceptsKwargs = used.contains("kwargs")
        acceptsCaller = used.contains("caller") || parameters.contains { $0.0 == "caller" }
    }
}

/// A statement or piece of output.
indirect enum Node: Sendable {
    case text(String)
    case output(Expr)
    case ifChain([(Expr, [Node])], otherwise: [Node]?)
    case forLoop(ForLoopNode)
    case set(AssignTarget, Expr)
    case setBlock(AssignTarget, [Node], [FilterCall])
    case macro(MacroDefinition)
    /// `{% call(params) m(args) %}body{% endcall %}`: `caller` is a macro made of the body.
    case callBlock(MacroDefinition, Expr)
    case filterBlock([FilterCall], [Node])
    case with([(String, Expr)], [Node])
    /// transformers' `{% generation %}`: renders its body, compiled like a call block.
    case generation([Node])
    case breakLoop
    case continueLoop
}
