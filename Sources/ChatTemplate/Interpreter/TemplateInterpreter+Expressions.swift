/// Arguments after evaluation: positional values and ordered keyword values.
struct EvaluatedArguments {
    var positional: [Value] = []
    var keyword: [(String, Value)] = []

    init(positional: [Value] = [], keyword: [(String, Value)] = []) {
        self.positional = positional
        self.keyword = keyword
    }

    /// The argument at `index` or named `name` (Python's binding of one parameter).
    func value(_ index: Int, _ name: String) -> Value? {
        if index < positional.count { return positional[index] }
        return keyword.first(where: { $0.0 == name })?.1
    }

    /// Refuses arguments beyond the parameters a function takes.
    func check(_ function: String, names: [String]) throws(TemplateError) {
        if positional.count > names.count {
            throw TemplateError.type("\(function)() takes at most \(names.count) argument\(names.count == 1 ? "" : "s") (\(positional.count) given)")
        }
        for (k, _) in keyword where !names.contains(k) {
            throw TemplateError.type("\(function)() got an unexpected keyword argument '\(k)'")
        }
    }
}

extension TemplateInterpreter {
    func evaluate(_ expr: Expr, _ scope: Scope) throws(TemplateError) -> Value {
        try enterNesting()
        defer { nesting -= 1 }
        switch expr {
        case .literal(let l):
            return l.value
        case .name(let n):
            return lookup(n, scope)
        case .list(let items):
            return .list(try evaluateItems(items, scope))
        case .tuple(let items):
            return .tuple(try evaluateItems(items, scope))
        case .dict(let pairs):
            return try evaluateDict(pairs, scope)
        case .attribute(let object, let name):
            return try attribute(of: try evaluate(object, scope), name)
        case .item(let object, let key):
            return try item(of: try evaluate(object, scope), try evaluate(key, scope))
        case .slice(let object, let lower, let upper, let stride):
            return try evaluateSlice(object, lower, upper, stride, scope)
        case .call(let callee, let args):
            return try evaluateCall(callee, args, scope)
        case .filter(let object, let name, let args):
            return try evaluateFilter(object, name, args, scope)
        case .test(let object, let name, let args, let negated):
            return try evaluateTest(object, name, args, negated, scope)
        case .negate(let e):
            return try negate(try evaluate(e, scope))
        case .plus(let e):
            return try unaryPlus(try evaluate(e, scope))
        case .not(let e):
            return .bool(!(try evaluate(e, scope).truthy))
        case .binary(let op, let l, let r):
            return try binary(op, try evaluate(l, scope), try evaluate(r, scope))
        case .and(let l, let r):
            let left = try evaluate(l, scope)
            return left.truthy ? try evaluate(r, scope) : left
        case .or(let l, let r):
            let left = try evaluate(l, scope)
            return left.truthy ? left : try evaluate(r, scope)
        case .compare(let first, let ops):
            return try evaluateCompare(first, ops, scope)
        case .concat(let parts):
            return try evaluateConcat(parts, scope)
        case .conditional(let test, let then, let otherwise):
            if try evaluate(test, scope).truthy { return try evaluate(then, scope) }
            if let otherwise { return try evaluate(otherwise, scope) }
            return .undefined(UndefinedInfo(hint: "the inline if-expression evaluated to false and no else section was defined."))
        }
    }

    // The cases below live in their own functions so that `evaluate`, which recurses once per
    // level of expression nesting, keeps a small stack frame.

    @inline(never)
    private func evaluateItems(_ items: [Expr], _ scope: Scope) throws(TemplateError) -> [Value] {
        var out: [Value] = []
        out.reserveCapacity(items.count)
        for item in items { out.append(try evaluate(item, scope)) }
        return out
    }

    @inline(never)
    private func evaluateDict(_ pairs: [(Expr, Expr)], _ scope: Scope) throws(TemplateError) -> Value {
        var d = PyDict()
        for (k, v) in pairs {
            let key = try evaluate(k, scope)
            try d.insert(key, try evaluate(v, scope))
        }
        return .dict(d)
    }

    @inline(never)
    private func evaluateSlice(_ object: Expr, _ lower: Expr?, _ upper: Expr?, _ stride: Expr?, _ scope: Scope) throws(TemplateError) -> Value {
        let target = try evaluate(object, scope)
        let a = try lower.map { (e: Expr) throws(TemplateError) in try evaluate(e, scope) }
        let b = try upper.map { (e: Expr) throws(TemplateError) in try evaluate(e, scope) }
        let c = try stride.map { (e: Expr) throws(TemplateError) in try evaluate(e, scope) }
        return try slice(target, a, b, c)
    }

    @inline(never)
    private func evaluateCall(_ callee: Expr, _ args: CallArguments, _ scope: Scope) throws(TemplateError) -> Value {
        let arguments = try evaluateArguments(args, scope)
        if case .attribute(let receiverExpr, let name) = callee {
            // Method calls skip building a bound-method value.
            let receiver = try evaluate(receiverExpr, scope)
            if let result = try callMethodIfAny(receiver, name, arguments) { return result }
            return try callValue(try attribute(of: receiver, name), arguments)
        }
        try step()
        return try callValue(try evaluate(callee, scope), arguments)
    }

    @inline(never)
    private func evaluateFilter(_ object: Expr, _ name: String, _ args: CallArguments, _ scope: Scope) throws(TemplateError) -> Value {
        let value = try evaluate(object, scope)
        return try applyFilter(name, value, try evaluateArguments(args, scope))
    }

    @inline(never)
    private func evaluateTest(_ object: Expr, _ name: String, _ args: CallArguments, _ negated: Bool, _ scope: Scope) throws(TemplateError) -> Value {
        let value = try evaluate(object, scope)
        let result = try applyTest(name, value, try evaluateArguments(args, scope))
        return .bool(result != negated)
    }

    @inline(never)
    private func negate(_ v: Value) throws(TemplateError) -> Value {
        switch v {
        case .bool(let b): return .int(b ? -1 : 0)
        case .int(let i):
            guard i != Int.min else { throw TemplateError(.arithmetic, "integer overflow") }
            return .int(-i)
        case .double(let d): return .double(-d)
        case .undefined(let u): throw u.error
        default: throw TemplateError.type("bad operand type for unary -: '\(v.typeName)'")
        }
    }

    @inline(never)
    private func unaryPlus(_ v: Value) throws(TemplateError) -> Value {
        switch v {
        case .bool(let b): return .int(b ? 1 : 0)
        case .int, .double: return v
        case .undefined(let u): throw u.error
        default: throw TemplateError.type("bad operand type for unary +: '\(v.typeName)'")
        }
    }

    @inline(never)
    private func evaluateCompare(_ first: Expr, _ ops: [(CompareOperator, Expr)], _ scope: Scope) throws(TemplateError) -> Value {
        var left = try evaluate(first, scope)
        for (op, rightExpr) in ops {
            let right = try evaluate(rightExpr, scope)
            if !(try compare(op, left, right)) { return .bool(false) }
            left = right
        }
        return .bool(true)
    }

    @inline(never)
    private func evaluateConcat(_ parts: [Expr], _ scope: Scope) throws(TemplateError) -> Value {
        var s = ""
        for p in parts { s += PythonFormat.str(try evaluate(p, scope)) }
        return .string(s)
    }

    func evaluateArguments(_ args: CallArguments, _ scope: Scope) throws(TemplateError) -> EvaluatedArguments {
        var out = EvaluatedArguments()
        for p in args.positional { out.positional.append(try evaluate(p, scope)) }
        for (k, v) in args.keyword { out.keyword.append((k, try evaluate(v, scope))) }
        if let star = args.star { out.positional.append(contentsOf: try iterate(try evaluate(star, scope))) }
        if let doubleStar = args.doubleStar {
            guard case .dict(let d) = try evaluate(doubleStar, scope) else {
                throw TemplateError.type("argument after ** must be a mapping")
            }
            for (k, v) in d.items {
                guard let name = k.stringValue else { throw TemplateError.type("keywords must be strings") }
                out.keyword.append((name, v))
            }
        }
        return out
    }

    /// Calls any callable value.
    func callValue(_ callee: Value, _ arguments: EvaluatedArguments) throws(TemplateError) -> Value {
        switch callee {
        case .callable(let c):
            switch c {
            case .macro(let m): return try callMacro(m, arguments)
            case .builtin(let name): return try callGlobal(name, arguments)
            case .method(let receiver, let name):
                guard let result = try callMethodIfAny(receiver, name, arguments) else {
                    throw TemplateError.type("'\(receiver.typeName)' object has no method '\(name)'")
                }
                return result
            case .loopCycle(let loop):
                guard !arguments.positional.isEmpty else { throw TemplateError.type("no items for cycling given") }
                return arguments.positional[loop.index0 % arguments.positional.count]
            case .joiner(let state):
                if !state.used { state.used = true; return .string("") }
                return .string(state.separator)
            case .cycler:
                throw TemplateError.type("'Cycler' object is not callable")
            case .loopChanged(let loop):
                if let last = loop.lastChanged, Value.pyEqual(.list(last), .list(arguments.positional)) { return .bool(false) }
                loop.lastChanged = arguments.positional
                return .bool(true)
            }
        case .loop(let context):
            return try callRecursiveLoop(context, arguments)
        case .undefined(let u):
            throw u.error
        default:
            throw TemplateError.type("'\(callee.typeName)' object is not callable")
        }
    }

    // MARK: - Operators

    func binary(_ op: BinaryOperator, _ l: Value, _ r: Value) throws(TemplateError) -> Value {
        if case .undefined(let u) = l { throw u.error }
        if case .undefined(let u) = r { throw u.error }
        if let a = l.numeric, let b = r.numeric { return try arithmetic(op, a, b) }
        switch op {
        case .add:
            switch (l, r) {
            case (.string(let a), .string(let b)): return .string(a + b)
            case (.markup(let a), .markup(let b)): return .markup(a + b)
            case (.markup(let a), .string(let b)): return .markup(a + PythonFormat.htmlEscape(b))
            case (.string(let a), .markup(let b)): return .markup(PythonFormat.htmlEscape(a) + b)
            case (.list(let a), .list(let b)): return .list(a + b)
            case (.tuple(let a), .tuple(let b)): return .tuple(a + b)
            case (.string, _), (.markup, _):
                throw TemplateError.type("can only concatenate str (not \"\(r.typeName)\") to str")
            case (.list, _):
                throw TemplateError.type("can only concatenate list (not \"\(r.typeName)\") to list")
            case (.tuple, _):
                throw TemplateError.type("can only concatenate tuple (not \"\(r.typeName)\") to tuple")
            default: break
            }
        case .multiply:
            if case .int(let n) = r.numeric ?? .double(0), l.numeric == nil { return try repeatValue(l, n) }
            if case .int(let n) = l.numeric ?? .double(0), r.numeric == nil { return try repeatValue(r, n) }
        case .modulo:
            if let format = l.stringValue {
                let formatted = try PythonFormatSpec.percentFormat(format, r)
                if case .markup = l { return .markup(formatted) }
                return .string(formatted)
            }
        default:
            break
        }
        throw TemplateError.type("unsupported operand type(s) for \(op.rawValue): '\(l.typeName)' and '\(r.typeName)'")
    }

    private func repeatValue(_ v: Value, _ n: Int) throws(TemplateError) -> Value {
        let count = max(0, n)
        switch v {
        case .string(let s), .markup(let s):
            let (total, overflow) = s.utf8.count.multipliedReportingOverflow(by: count)
            if overflow || total > limits.maximumOutputBytes { throw TemplateError(.limit, "repeated string too large") }
            let out = String(repeating: s, count: count)
            if case .markup = v { return .markup(out) }
            return .string(out)
        case .list(let a), .tuple(let a):
            let (total, overflow) = a.count.multipliedReportingOverflow(by: count)
            if overflow || total > 1_000_000 { throw TemplateError(.limit, "repeated sequence too large") }
            var out: [Value] = []
            for _ in 0..<count { out += a }
            if case .tuple = v { return .tuple(out) }
            return .list(out)
        default:
            throw TemplateError.type("can't multiply sequence by non-int of type '\(v.typeName)'")
        }
    }

    private func arithmetic(_ op: BinaryOperator, _ a: Value.Numeric, _ b: Value.Numeric) throws(TemplateError) -> Value {
        if case .int(let x) = a, case .int(let y) = b {
            func checked(_ r: (partialValue: Int, overflow: Bool)) throws(TemplateError) -> Value {
                if r.overflow { throw TemplateError(.arithmetic, "integer overflow") }
                return .int(r.partialValue)
            }
            switch op {
            case .add: return try checked(x.addingReportingOverflow(y))
            case .subtract: return try checked(x.subtractingReportingOverflow(y))
            case .multiply: return try checked(x.multipliedReportingOverflow(by: y))
            case .divide:
                if y == 0 { throw TemplateError(.arithmetic, "division by zero") }
                return .double(Double(x) / Double(y))
            case .floorDivide:
                if y == 0 { throw TemplateError(.arithmetic, "integer division or modulo by zero") }
                if x == Int.min && y == -1 { throw TemplateError(.arithmetic, "integer overflow") }
                var q = x / y
                if (x % y != 0) && ((x < 0) != (y < 0)) { q -= 1 }
                return .int(q)
            case .modulo:
                if y == 0 { throw TemplateError(.arithmetic, "integer division or modulo by zero") }
                if y == -1 { return .int(0) }
                var m = x % y
                if m != 0 && ((m < 0) != (y < 0)) { m += y }
                return .int(m)
            case .power:
                if y < 0 { return .double(pow(Double(x), Double(y))) }
                var result = 1
                var base = x
                var e = y
                while e > 0 {
                    if e & 1 == 1 {
                        let r = result.multipliedReportingOverflow(by: base)
                        if r.overflow { throw TemplateError(.arithmetic, "integer overflow") }
                        result = r.partialValue
                    }
                    e >>= 1
                    if e > 0 {
                        let r = base.multipliedReportingOverflow(by: base)
                        if r.overflow { throw TemplateError(.arithmetic, "integer overflow") }
                        base = r.partialValue
                    }
                }
                return .int(result)
            }
        }
        let x = a.asDouble, y = b.asDouble
        switch op {
        case .add: return .double(x + y)
        case .subtract: return .double(x - y)
        case .multiply: return .double(x * y)
        case .divide:
            if y == 0 { throw TemplateError(.arithmetic, "float division by zero") }
            return .double(x / y)
        case .floorDivide:
            if y == 0 { throw TemplateError(.arithmetic, "float floor division by zero") }
            return .double((x / y).rounded(.down))
        case .modulo:
            if y == 0 { throw TemplateError(.arithmetic, "float modulo") }
            var m = x.truncatingRemainder(dividingBy: y)
            if m != 0 && ((m < 0) != (y < 0)) { m += y }
            return .double(m)
        case .power:
            return .double(pow(x, y))
        }
    }

    func compare(_ op: CompareOperator, _ l: Value, _ r: Value) throws(TemplateError) -> Bool {
        switch op {
        case .equal: return Value.pyEqual(l, r)
        case .notEqual: return !Value.pyEqual(l, r)
        case .contains: return try contains(r, l)
        case .notContains: return !(try contains(r, l))
        case .less: return try Value.pyCompare(l, r, op.rawValue) < 0
        case .lessEqual: return try Value.pyCompare(l, r, op.rawValue) <= 0
        case .greater: return try Value.pyCompare(l, r, op.rawValue) > 0
        case .greaterEqual: return try Value.pyCompare(l, r, op.rawValue) >= 0
        }
    }

    /// Python's `item in container`.
    func contains(_ container: Value, _ item: Value) throws(TemplateError) -> Bool {
        switch container {
        case .string(let s), .markup(let s):
            guard let sub = item.stringValue else {
                throw TemplateError.type("'in <string>' requires string as left operand, not \(item.typeName)")
            }
            return PythonString.contains(s, sub)
        case .list(let a), .tuple(let a):
            return a.contains { Value.pyEqual($0, item) }
        case .view(let v):
            return v.items.contains { Value.pyEqual($0, item) }
        case .range(let r):
            guard case .int(let i)? = item.numeric else {
                if case .double(let d) = item, d == d.rounded(), abs(d) < 9e18 { return r.contains(Int(d)) }
                return false
            }
            return r.contains(i)
        case .dict(let d):
            guard let k = HashKey(item) else { throw TemplateError.type("unhashable type: '\(item.typeName)'") }
            return d.position(of: k) != nil
        case .undefined:
            return false
        case .generator(let g):
            return try g.drain().contains { Value.pyEqual($0, item) }
        default:
            throw TemplateError.type("argument of type '\(container.typeName)' is not iterable")
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Value {
    /// Python's `==`.
    static func pyEqual(_ a: Value, _ b: Value) -> Bool {
        if let x = a.numeric, let y = b.numeric {
            if case .int(let i) = x, case .int(let j) = y { return i == j }
            return x.asDouble == y.asDouble
        }
        switch (a, b) {
        case (.none, .none), (.undefined, .undefined): return true
        case (.string(let x), .string(let y)), (.string(let x), .markup(let y)),
             (.markup(let x), .string(let y)), (.markup(let x), .markup(let y)):
            return PythonString.equal(x, y)
        case (.list(let x), .list(let y)), (.tuple(let x), .tuple(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { pyEqual($0, $1) }
        case (.dict(let x), .dict(let y)):
            guard x.count == y.count else { return false }
            for (k, v) in x.items {
                guard let other = y.lookup(k), pyEqual(v, other) else { return false }
            }
            return true
        case (.range(let x), .range(let y)):
            if x.count != y.count { return false }
            if x.count == 0 { return true }
            return x.start == y.start && (x.count == 1 || x.step == y.step)
        case (.namespace(let x), .namespace(let y)): return x === y
        case (.generator(let x), .generator(let y)): return x === y
        case (.loop(let x), .loop(let y)): return x === y
        default: return false
        }
    }

    /// Python's ordering: negative, zero or positive; a `TypeError` for unorderable types.
    static func pyCompare(_ a: Value, _ b: Value, _ op: String) throws(TemplateError) -> Int {
        if case .undefined(let u) = a { throw u.error }
        if case .undefined(let u) = b { throw u.error }
        if let x = a.numeric, let y = b.numeric {
            if case .int(let i) = x, case .int(let j) = y { return i < j ? -1 : (i == j ? 0 : 1) }
            let p = x.asDouble, q = y.asDouble
            return p < q ? -1 : (p == q ? 0 : 1)
        }
        if let x = a.stringValue, let y = b.stringValue {
            if PythonString.equal(x, y) { return 0 }
            return PythonString.less(x, y) ? -1 : 1
        }
        switch (a, b) {
        case (.list(let x), .list(let y)), (.tuple(let x), .tuple(let y)):
            for (p, q) in zip(x, y) where !pyEqual(p, q) { return try pyCompare(p, q, op) }
            return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
        default:
            throw TemplateError.type("'\(op)' not supported between instances of '\(a.typeName)' and '\(b.typeName)'")
        }
    }
}
