/// Jinja2's compile-time checks: filter and test names, and `break`/`continue` placement.
///
/// Jinja2 refuses an unknown filter or test when it compiles the template
/// (`TemplateAssertionError`), except inside an `if` statement or a conditional expression,
/// where the failure is deferred to run time (so templates can guard optional filters). Loops,
/// macros, call, filter, set and with blocks start a fresh, non-deferring frame even inside
/// an `if`, as in Jinja2's code generator.
enum TemplateValidation {
    /// Every filter Jinja2 defines, plus Hugging Face's `tojson`: the implemented ones and those
    /// that only fail when they run.
    private static func isKnownFilter(_ name: String) -> Bool {
        TemplateInterpreter.filters[name] != nil || TemplateInterpreter.unsupportedFilters.contains(name)
    }

    static func check(_ nodes: [Node]) throws(TemplateError) {
        for node in nodes { try check(node, soft: false, inLoop: false) }
    }

    /// `inLoop`: a `break`/`continue` here would be inside a Python `for` of the generated code.
    /// Loop bodies are; a loop's `else`, macro and call-block bodies are not (they compile to
    /// separate functions or run after the loop), while `if`, `set`, `filter` and `with`
    /// blocks inherit it.
    private static func check(_ node: Node, soft: Bool, inLoop: Bool) throws(TemplateError) {
        switch node {
        case .text: break
        case .breakLoop, .continueLoop:
            if !inLoop {
                if case .breakLoop = node { throw TemplateError(.syntax, "'break' outside loop") }
                throw TemplateError(.syntax, "'continue' not properly in loop")
            }
        case .output(let e): try check(e, soft: soft)
        case .ifChain(let branches, let otherwise):
            for (c, body) in branches {
                try check(c, soft: true)
                for n in body { try check(n, soft: true, inLoop: inLoop) }
            }
            for n in otherwise ?? [] { try check(n, soft: true, inLoop: inLoop) }
        case .forLoop(let loop):
            try check(loop.iterable, soft: soft)
            if let c = loop.condition { try check(c, soft: soft) }
            for n in loop.body { try check(n, soft: false, inLoop: true) }
            for n in loop.elseBody { try check(n, soft: false, inLoop: inLoop) }
        case .set(_, let e): try check(e, soft: soft)
        case .setBlock(_, let body, let filters):
            for f in filters { try checkFilter(f.name, f.arguments, soft: soft) }
            for n in body { try check(n, soft: false, inLoop: inLoop) }
        case .macro(let def):
            for (_, d) in def.parameters { if let d { try check(d, soft: false) } }
            for n in def.body { try check(n, soft: false, inLoop: false) }
        case .callBlock(let def, let call):
            try check(call, soft: soft)
            for n in def.body { try check(n, soft: false, inLoop: false) }
        case .generation(let body):
            for n in body { try check(n, soft: false, inLoop: false) }
        case .filterBlock(let filters, let body):
            for f in filters { try checkFilter(f.name, f.arguments, soft: soft) }
            for n in body { try check(n, soft: false, inLoop: inLoop) }
        case .with(let assignments, let body):
            for (_, e) in assignments { try check(e, soft: soft) }
            for n in body { try check(n, soft: false, inLoop: inLoop) }
        }
    }

    private static func checkFilter(_ name: String, _ args: CallArguments, soft: Bool) throws(TemplateError) {
        if !soft && !isKnownFilter(name) { throw TemplateError(.assertion, "No filter named '\(name)'.") }
        try check(args, soft: soft)
    }

    private static func check(_ args: CallArguments, soft: Bool) throws(TemplateError) {
        for e in args.positional { try check(e, soft: soft) }
        for (_, e) in args.keyword { try check(e, soft: soft) }
        if let s = args.star { try check(s, soft: soft) }
        if let s = args.doubleStar { try check(s, soft: soft) }
    }

    private static func check(_ expr: Expr, soft: Bool) throws(TemplateError) {
        switch expr {
        case .literal, .name: break
        case .list(let items), .tuple(let items), .concat(let items):
            for e in items { try check(e, soft: soft) }
        case .dict(let pairs):
            for (k, v) in pairs { try check(k, soft: soft); try check(v, soft: soft) }
        case .attribute(let e, _), .negate(let e), .plus(let e), .not(let e):
            try check(e, soft: soft)
        case .item(let a, let b), .binary(_, let a, let b), .and(let a, let b), .or(let a, let b):
            try check(a, soft: soft); try check(b, soft: soft)
        case .slice(let e, let a, let b, let c):
            try check(e, soft: soft)
            for part in [a, b, c] { if let part { try check(part, soft: soft) } }
        case .call(let e, let args):
            try check(e, soft: soft); try check(args, soft: soft)
        case .filter(let e, let name, let args):
            try check(e, soft: soft)
            try checkFilter(name, args, soft: soft)
        case .test(let e, let name, let args, _):
            try check(e, soft: soft)
            if !soft && TemplateInterpreter.tests[name] == nil { throw TemplateError(.assertion, "No test named '\(name)'.") }
            try check(args, soft: soft)
        case .compare(let e, let ops):
            try check(e, soft: soft)
            for (_, o) in ops { try check(o, soft: soft) }
        case .conditional(let t, let a, let b):
            try check(t, soft: true); try check(a, soft: true)
            if let b { try check(b, soft: true) }
        }
    }
}
