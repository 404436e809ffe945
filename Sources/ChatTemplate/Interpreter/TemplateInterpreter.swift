/// Executes a parsed template: statements, scoping and output.
///
/// Scoping follows Jinja2: `for` bodies and macro calls get their own scope (assignments inside
/// do not leak out, which is why templates use `namespace()`), every loop iteration starts
/// afresh from the enclosing values, `if` introduces no scope, and names not found in any scope
/// come from the render context and then the globals.
final class TemplateInterpreter {
    var output = ""
    let limits: TemplateLimits
    let now: TemplateDateTime
    var steps = 0
    var callDepth = 0
    var nesting = 0

    /// Names that loop and macro bodies start as undefined (see `TemplateFrameAnalysis`).
    let frames: [ObjectIdentifier: [String]]

    /// Scopes that macros close over, and namespaces, made during this render. A macro is bound
    /// in the very scope it closes over, and a namespace can hold itself (directly or through a
    /// loop or macro), so both form reference cycles that would leak on every render.
    private var closureScopes: [Scope] = []
    private var namespaces: [Namespace] = []

    init(limits: TemplateLimits, now: TemplateDateTime, frames: [ObjectIdentifier: [String]] = [:]) {
        self.limits = limits
        self.now = now
        self.frames = frames
    }

    enum Flow { case normal, breakLoop, continueLoop }

    /// Records a namespace so `releaseCycles` can empty it.
    func track(_ namespace: Namespace) -> Namespace {
        namespaces.append(namespace)
        return namespace
    }

    /// Breaks the reference cycles a render may have built (see `closureScopes`). Call once the
    /// render is over: nothing it made is reachable afterwards, only its output string.
    func releaseCycles() {
        for scope in closureScopes { scope.removeAll() }
        for namespace in namespaces { namespace.attributes = PyDict() }
        closureScopes.removeAll()
        namespaces.removeAll()
    }

    func step() throws(TemplateError) {
        steps += 1
        if steps > limits.maximumSteps {
            throw TemplateError(.limit, "template exceeded its budget of \(limits.maximumSteps) steps")
        }
    }

    func emit(_ text: String) throws(TemplateError) {
        output += text
        if output.utf8.count > limits.maximumOutputBytes {
            throw TemplateError(.limit, "template output exceeded \(limits.maximumOutputBytes) bytes")
        }
    }

    /// Renders `nodes` into a fresh buffer; returns what they printed and how they ended.
    func captureFlow(_ nodes: [Node], _ scope: Scope) throws(TemplateError) -> (String, Flow) {
        let saved = output
        output = ""
        defer { output = saved }
        let flow = try execute(nodes, scope)
        return (output, flow)
    }

    /// Renders `nodes` into a fresh buffer and returns what they printed.
    func capture(_ nodes: [Node], _ scope: Scope) throws(TemplateError) -> String {
        let saved = output
        output = ""
        defer { output = saved }
        _ = try execute(nodes, scope)
        return output
    }

    /// Refuses padding widths and counts that could only exhaust memory.
    func checkedSize(_ n: Int, _ what: String) throws(TemplateError) -> Int {
        if n > 10_000_000 { throw TemplateError(.limit, "\(what) \(n) is too large") }
        return n
    }

    /// Counts native recursion (statements, expressions, calls) against `maximumNesting`.
    @inline(__always)
    func enterNesting() throws(TemplateError) {
        nesting += 1
        if nesting > limits.maximumNesting {
            throw TemplateError(.limit, "template evaluation nested deeper than \(limits.maximumNesting) levels")
        }
    }

    @discardableResult
    func execute(_ nodes: [Node], _ scope: Scope) throws(TemplateError) -> Flow {
        try enterNesting()
        defer { nesting -= 1 }
        for node in nodes {
            try step()
            switch node {
            case .text(let t):
                try emit(t)
            case .output(let e):
                let v = try evaluate(e, scope)
                switch v {
                case .string(let s), .markup(let s): try emit(s)
                default: try emit(PythonFormat.str(v))
                }
            case .ifChain(let branches, let otherwise):
                var taken = false
                for (condition, body) in branches where try evaluate(condition, scope).truthy {
                    taken = true
                    let flow = try execute(body, scope)
                    if flow != .normal { return flow }
                    break
                }
                if !taken, let otherwise {
                    let flow = try execute(otherwise, scope)
                    if flow != .normal { return flow }
                }
            case .forLoop(let loop):
                try executeFor(loop, scope)
            case .set(let target, let expr):
                try assign(target, try evaluate(expr, scope), scope)
            case .setBlock, .macro, .callBlock, .filterBlock:
                let flow = try executeBlock(node, scope)
                if flow != .normal { return flow }
            case .generation(let body):
                try execute(body, Scope(parent: scope))
            case .with(let assignments, let body):
                let flow = try executeWith(assignments, body, scope)
                if flow != .normal { return flow }
            case .breakLoop:
                return .breakLoop
            case .continueLoop:
                return .continueLoop
            }
        }
        return .normal
    }

    // Less common statements live outside `execute`, which recurses once per block level and
    // should keep a small stack frame.
    /// A `break`/`continue` inside a set or filter block leaves the enclosing loop at once; the
    /// block's partial output is dropped, as in Jinja2's generated code.
    @inline(never)
    private func executeBlock(_ node: Node, _ scope: Scope) throws(TemplateError) -> Flow {
        switch node {
        case .setBlock(let target, let body, let filters):
            // The body is an inner frame: its own assignments stay inside. Reading the target
            // name there sees the frame's current value, which the frame analysis has made
            // undefined when the set block is the name's first use.
            let (text, flow) = try captureFlow(body, Scope(parent: scope))
            if flow != .normal { return flow }
            var value: Value = .string(text)
            for f in filters { value = try applyFilter(f.name, value, try evaluateArguments(f.arguments, scope)) }
            try assign(target, value, scope)
        case .macro(let definition):
            closureScopes.append(scope)
            scope[definition.name] = .callable(.macro(Macro(definition: definition, closure: scope)))
        case .callBlock(let callerDefinition, let call):
            guard case .call(let callee, let args) = call else { return .normal }
            closureScopes.append(scope)
            var arguments = try evaluateArguments(args, scope)
            arguments.keyword.append(("caller", .callable(.macro(Macro(definition: callerDefinition, closure: scope)))))
            let result = try callValue(try evaluate(callee, scope), arguments)
            try emit(PythonFormat.str(result))
        case .filterBlock(let filters, let body):
            let (text, flow) = try captureFlow(body, Scope(parent: scope))
            if flow != .normal { return flow }
            var value: Value = .string(text)
            for f in filters { value = try applyFilter(f.name, value, try evaluateArguments(f.arguments, scope)) }
            try emit(PythonFormat.str(value))
        default:
            break
        }
        return .normal
    }

    @inline(never)
    private func executeWith(_ assignments: [(String, Expr)], _ body: [Node], _ scope: Scope) throws(TemplateError) -> Flow {
        let inner = Scope(parent: scope)
        for (name, expr) in assignments { inner[name] = try evaluate(expr, scope) }
        return try execute(body, inner)
    }

    func assign(_ target: AssignTarget, _ value: Value, _ scope: Scope) throws(TemplateError) {
        switch target {
        case .name(let n):
            scope[n] = value
        case .names(let names):
            let items = try iterate(value)
            if items.count < names.count {
                throw TemplateError.value("not enough values to unpack (expected \(names.count), got \(items.count))")
            }
            if items.count > names.count {
                throw TemplateError.value("too many values to unpack (expected \(names.count))")
            }
            for (n, v) in zip(names, items) { scope[n] = v }
        case .attribute(let object, let attribute):
            guard case .namespace(let ns) = lookup(object, scope) else {
                throw TemplateError.runtime("cannot assign attribute on non-namespace object")
            }
            try ns.assign(attribute, value)
        }
    }

    private func executeFor(_ loop: ForLoopNode, _ scope: Scope) throws(TemplateError) {
        try runLoop(loop, try evaluate(loop.iterable, scope), scope, depth0: 0)
    }

    /// `loop(items)` inside a recursive loop: the body again, one level deeper, as a string.
    func callRecursiveLoop(_ context: LoopContext, _ arguments: EvaluatedArguments) throws(TemplateError) -> Value {
        guard let (node, scope) = context.recursion else {
            throw TemplateError.type("'LoopContext' object is not callable: the loop is not recursive")
        }
        guard arguments.positional.count == 1, arguments.keyword.isEmpty else {
            throw TemplateError.type("loop() takes exactly one argument")
        }
        callDepth += 1
        defer { callDepth -= 1 }
        if callDepth > limits.maximumCallDepth {
            throw TemplateError(.limit, "recursive loop nested deeper than \(limits.maximumCallDepth)")
        }
        let saved = output
        output = ""
        defer { output = saved }
        try runLoop(node, arguments.positional[0], scope, depth0: context.depth0 + 1)
        return .string(output)
    }

    private func runLoop(_ loop: ForLoopNode, _ iterable: Value, _ scope: Scope, depth0: Int) throws(TemplateError) {
        var items = try iterate(iterable)
        if let condition = loop.condition {
            var kept: [Value] = []
            for item in items {
                try step()
                let probe = Scope(parent: scope)
                try assign(loop.target, item, probe)
                if try evaluate(condition, probe).truthy { kept.append(item) }
            }
            items = kept
        }
        if items.isEmpty {
            if !loop.elseBody.isEmpty { try execute(loop.elseBody, Scope(parent: scope)) }
            return
        }
        let context = LoopContext(items: items, depth0: depth0, recursion: loop.recursive ? (loop, scope) : nil)
        // Jinja2 clears its "no iteration" flag at the end of the body, so `else` also runs when
        // every iteration left early through `break` or `continue`.
        var completedIteration = false
        let frameLocals = frames[ObjectIdentifier(loop)] ?? []

        for (i, item) in items.enumerated() {
            try step()
            context.index0 = i
            let iteration = Scope(parent: scope)
            for name in frameLocals { iteration[name] = .missing(name) }
            iteration["loop"] = .loop(context)
            try assign(loop.target, item, iteration)
            let flow = try execute(loop.body, iteration)
            if flow == .normal { completedIteration = true }
            if flow == .breakLoop { break }
        }
        if !completedIteration && !loop.elseBody.isEmpty {
            try execute(loop.elseBody, Scope(parent: scope))
        }
    }

    /// Name resolution: scopes, then the render context (the root scope), then globals.
    func lookup(_ name: String, _ scope: Scope) -> Value {
        if let v = scope.lookup(name) { return v }
        if TemplateGlobals.names.contains(name) { return .callable(.builtin(name)) }
        return .missing(name)
    }

    /// Calls a macro with bound arguments and returns its output.
    func callMacro(_ macro: Macro, _ arguments: EvaluatedArguments) throws(TemplateError) -> Value {
        callDepth += 1
        defer { callDepth -= 1 }
        if callDepth > limits.maximumCallDepth {
            throw TemplateError(.limit, "macro calls nested deeper than \(limits.maximumCallDepth)")
        }
        let def = macro.definition
        let scope = Scope(parent: macro.closure)
        for name in frames[ObjectIdentifier(def)] ?? [] { scope[name] = .missing(name) }
        var keyword = arguments.keyword
        var extraPositional: [Value] = []
        for (i, value) in arguments.positional.enumerated() {
            if i < def.parameters.count {
                scope[def.parameters[i].0] = value
            } else {
                extraPositional.append(value)
            }
        }
        for (i, param) in def.parameters.enumerated() where i >= arguments.positional.count {
            if let k = keyword.firstIndex(where: { $0.0 == param.0 }) {
                scope[param.0] = keyword[k].1
                keyword.remove(at: k)
            } else if let defaultExpr = param.1 {
                scope[param.0] = try evaluate(defaultExpr, scope)
            } else {
                scope[param.0] = .undefined(UndefinedInfo(hint: "parameter '\(param.0)' was not provided"))
            }
        }
        if def.acceptsCaller, !def.parameters.contains(where: { $0.0 == "caller" }) {
            if let k = keyword.firstIndex(where: { $0.0 == "caller" }) {
                scope["caller"] = keyword[k].1
                keyword.remove(at: k)
            } else {
                scope["caller"] = .undefined(UndefinedInfo(name: "caller", hint: "No caller defined"))
            }
        }
        if def.acceptsKwargs {
            var kwargs = PyDict()
            for (k, v) in keyword { kwargs[k] = v }
            scope["kwargs"] = .dict(kwargs)
        } else if let (name, _) = keyword.first {
            if name == "caller" {
                throw TemplateError.type("macro '\(def.name)' was invoked with two values for the special caller argument. This is most likely a bug.")
            }
            throw TemplateError.type("macro '\(def.name)' takes no keyword argument '\(name)'")
        }
        if def.acceptsVarargs {
            scope["varargs"] = .tuple(extraPositional)
        } else if !extraPositional.isEmpty {
            throw TemplateError.type("macro '\(def.name)' takes not more than \(def.parameters.count) argument(s)")
        }
        return .string(try capture(def.body, scope))
    }
}
