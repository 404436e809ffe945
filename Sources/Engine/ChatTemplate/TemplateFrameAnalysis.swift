/// Jinja2's symbol analysis of the template's top-level frame.
///
/// Jinja2 decides statically how each name of a frame starts out: a name whose first use in
/// the frame is an unconditional assignment starts *undefined* — it does not fall back to the
/// render context, even when read (from a loop or macro body) before the assignment runs. A
/// name first read, or assigned only inside `if` branches, resolves from the context until it
/// is assigned. Loop, macro and block bodies are separate frames and are not part of this
/// analysis (their reads are not top-level reads).
enum TemplateFrameAnalysis {
    /// Names the top-level frame must start as undefined.
    static func rootUndefinedNames(_ nodes: [Node]) -> [String] {
        var refs: [String: Bool] = [:]  // name -> starts undefined
        var stores: Set<String> = []
        visit(nodes, &refs, &stores)
        return refs.filter { $0.value }.map(\.key).sorted()
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
