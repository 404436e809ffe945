/// Jinja2's symbol analysis of frames.
///
/// Jinja2 decides statically how each name of a frame (the top level, a loop body, a macro
/// body, …) starts out: a name whose first use in the frame is an unconditional assignment, and
/// that no enclosing frame mentions, starts *undefined* — it does not fall back to the render
/// context, even when read (from a nested loop or macro) before the assignment runs. Other
/// names resolve through the enclosing frames and then the context, which is what Loom's scope
/// chain does at run time.
enum TemplateFrameAnalysis {
    /// Names to bind as undefined when each frame is entered: the top level, and loop and macro
    /// bodies keyed by their node's identity.
    struct Result: Sendable {
        var root: [String] = []
        var frames: [ObjectIdentifier: [String]] = [:]
    }

    static func analyze(_ nodes: [Node]) -> Result {
        var result = Result()
        result.root = frame(nodes, preStored: [], enclosing: [], &result)
        return result
    }

    /// Analyses one frame and, recursively, the frames inside it; returns the names that start
    /// undefined here.
    private static func frame(_ nodes: [Node], preStored: [String], enclosing: Set<String>,
                              _ result: inout Result) -> [String] {
        var refs: [String: Bool] = [:]  // name -> starts undefined
        var stores: Set<String> = []
        for n in preStored { store(n, &refs, &stores) }
        visit(nodes, &refs, &stores)
        let visible = enclosing.union(refs.keys)
        for node in nodes { inner(node, visible, &result) }
        return refs.filter { $0.value && !enclosing.contains($0.key) }.map(\.key).sorted()
    }

    /// Finds the frames nested in `node` (descending through `if` branches, which share the
    /// frame).
    private static func inner(_ node: Node, _ visible: Set<String>, _ result: inout Result) {
        switch node {
        case .forLoop(let loop):
            var targets: [String] = []
            switch loop.target {
            case .name(let n): targets = [n]
            case .names(let ns): targets = ns
            case .attribute: break
            }
            result.frames[ObjectIdentifier(loop)] = frame(loop.body, preStored: targets + ["loop"], enclosing: visible, &result)
            _ = frame(loop.elseBody, preStored: [], enclosing: visible, &result)
        case .macro(let def):
            result.frames[ObjectIdentifier(def)] = frame(def.body, preStored: def.parameters.map(\.0) + ["varargs", "kwargs", "caller"], enclosing: visible, &result)
        case .callBlock(let def, _):
            result.frames[ObjectIdentifier(def)] = frame(def.body, preStored: def.parameters.map(\.0) + ["varargs", "kwargs"], enclosing: visible, &result)
        case .setBlock(_, let body, _), .filterBlock(_, let body), .generation(let body):
            _ = frame(body, preStored: [], enclosing: visible, &result)
        case .with(let assignments, let body):
            _ = frame(body, preStored: assignments.map(\.0), enclosing: visible, &result)
        case .ifChain(let branches, let otherwise):
            for (_, body) in branches { for n in body { inner(n, visible, &result) } }
            for n in otherwise ?? [] { inner(n, visible, &result) }
        default:
            break
        }
    }

    private static func load(_ name: String, _ refs: inout [String: Bool]) {
        if refs[name] == nil { refs[name] = false }
    }

    private static func store(_ name: String, _ refs: inout [String: Bool], _ stores: inout Set<String>) {
        stores.insert(name)
        if refs[name] == nil { refs[name] = true }
    }

    private static func visit(_ nodes: [Node], _ refs: inout [String: Bool], _ stores: inout Set<String>) {
        for node in nodes { visit(node, &refs, &stores) }
    }

    private static func visit(_ node: Node, _ refs: inout [String: Bool], _ stores: inout Set<String>) {
        switch node {
        case .text, .breakLoop, .continueLoop, .generation: break
        case .output(let e): loads(e, &refs)
        case .set(let target, let e):
            loads(e, &refs)
            assign(target, &refs, &stores)
        case .setBlock(let target, _, _):
            assign(target, &refs, &stores)
        case .macro(let def):
            store(def.name, &refs, &stores)
        case .callBlock(_, let call):
            loads(call, &refs)
        case .filterBlock(let filters, _):
            for f in filters { loads(f.arguments, &refs) }
        case .with(let assignments, _):
            for (_, e) in assignments { loads(e, &refs) }
        case .forLoop(let loop):
            loads(loop.iterable, &refs)
        case .ifChain(let branches, let otherwise):
            // Each branch is analysed on a copy; names stored only inside branches resolve from
            // the context at frame entry (Jinja2's `branch_update`).
            for (test, _) in branches { loads(test, &refs) }
            var branchStores: Set<String> = []
            var merged = refs
            for body in branches.map(\.1) + [otherwise ?? []] {
                var r = refs
                var s: Set<String> = []
                visit(body, &r, &s)
                for (k, v) in r where merged[k] == nil { merged[k] = v }
                branchStores.formUnion(s)
            }
            refs = merged
            for name in branchStores.subtracting(stores) { refs[name] = false }
            stores.formUnion(branchStores)
        }
    }

    private static func assign(_ target: AssignTarget, _ refs: inout [String: Bool], _ stores: inout Set<String>) {
        switch target {
        case .name(let n): store(n, &refs, &stores)
        case .names(let ns): for n in ns { store(n, &refs, &stores) }
        case .attribute(let object, _): load(object, &refs)
        }
    }

    private static func loads(_ args: CallArguments, _ refs: inout [String: Bool]) {
        for e in args.positional { loads(e, &refs) }
        for (_, e) in args.keyword { loads(e, &refs) }
        if let s = args.star { loads(s, &refs) }
        if let s = args.doubleStar { loads(s, &refs) }
    }

    private static func loads(_ expr: Expr, _ refs: inout [String: Bool]) {
        switch expr {
        case .literal: break
        case .name(let n): load(n, &refs)
        case .list(let items), .tuple(let items), .concat(let items):
            for e in items { loads(e, &refs) }
        case .dict(let pairs):
            for (k, v) in pairs { loads(k, &refs); loads(v, &refs) }
        case .attribute(let e, _), .negate(let e), .plus(let e), .not(let e):
            loads(e, &refs)
        case .item(let a, let b), .binary(_, let a, let b), .and(let a, let b), .or(let a, let b):
            loads(a, &refs); loads(b, &refs)
        case .slice(let e, let a, let b, let c):
            loads(e, &refs)
            for part in [a, b, c] { if let part { loads(part, &refs) } }
        case .call(let e, let args), .filter(let e, _, let args), .test(let e, _, let args, _):
            loads(e, &refs); loads(args, &refs)
        case .compare(let e, let ops):
            loads(e, &refs)
            for (_, o) in ops { loads(o, &refs) }
        case .conditional(let t, let a, let b):
            loads(t, &refs); loads(a, &refs)
            if let b { loads(b, &refs) }
        }
    }
}
