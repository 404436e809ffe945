/// Finds which of a set of names a template fragment reads.
///
/// Jinja2 decides at compile time whether a macro accepts extra positional arguments
/// (`varargs`), extra keyword arguments (`kwargs`) or a `caller`: it does when its body reads
/// that name. Calls that pass more than the macro accepts are then a `TypeError`.
enum TemplateNameScan {
    static func references(_ wanted: Set<String>, in nodes: [Node]) -> Set<String> {
        var found: Set<String> = []
        for node in nodes { scan(node, wanted, &found) }
        return found
    }

    private static func scan(_ node: Node, _ wanted: Set<String>, _ found: inout Set<String>) {
        switch node {
        case .text, .breakLoop, .continueLoop: break
        case .output(let e): scan(e, wanted, &found)
        case .ifChain(let branches, let otherwise):
            for (c, body) in branches {
                scan(c, wanted, &found)
                for n in body { scan(n, wanted, &found) }
            }
            for n in otherwise ?? [] { scan(n, wanted, &found) }
        case .forLoop(let loop):
            scan(loop.iterable, wanted, &found)
            if let c = loop.condition { scan(c, wanted, &found) }
            for n in loop.body + loop.elseBody { scan(n, wanted, &found) }
        case .set(_, let e): scan(e, wanted, &found)
        case .setBlock(_, let body, let filters):
            for n in body { scan(n, wanted, &found) }
            for f in filters { scan(f.arguments, wanted, &found) }
        case .macro(let def):
            for (_, d) in def.parameters { if let d { scan(d, wanted, &found) } }
            for n in def.body { scan(n, wanted, &found) }
        case .callBlock(let def, let call):
            scan(call, wanted, &found)
            for n in def.body { scan(n, wanted, &found) }
        case .filterBlock(let filters, let body):
            for f in filters { scan(f.arguments, wanted, &found) }
            for n in body { scan(n, wanted, &found) }
        case .with(let assignments, let body):
            for (_, e) in assignments { scan(e, wanted, &found) }
            for n in body { scan(n, wanted, &found) }
        case .generation(let body):
            for n in body { scan(n, wanted, &found) }
        }
    }

    private static func scan(_ args: CallArguments, _ wanted: Set<String>, _ found: inout Set<String>) {
        for e in args.positional { scan(e, wanted, &found) }
        for (_, e) in args.keyword { scan(e, wanted, &found) }
        if let s = args.star { scan(s, wanted, &found) }
        if let s = args.doubleStar { scan(s, wanted, &found) }
    }

    private static func scan(_ expr: Expr, _ wanted: Set<String>, _ found: inout Set<String>) {
        switch expr {
        case .literal: break
        case .name(let n): if wanted.contains(n) { found.insert(n) }
        case .list(let items), .tuple(let items), .concat(let items):
            for e in items { scan(e, wanted, &found) }
        case .dict(let pairs):
            for (k, v) in pairs { scan(k, wanted, &found); scan(v, wanted, &found) }
        case .attribute(let e, _), .negate(let e), .plus(let e), .not(let e):
            scan(e, wanted, &found)
        case .item(let a, let b), .binary(_, let a, let b), .and(let a, let b), .or(let a, let b):
            scan(a, wanted, &found); scan(b, wanted, &found)
        case .slice(let e, let a, let b, let c):
            scan(e, wanted, &found)
            for part in [a, b, c] { if let part { scan(part, wanted, &found) } }
        case .call(let e, let args), .filter(let e, _, let args), .test(let e, _, let args, _):
            scan(e, wanted, &found); scan(args, wanted, &found)
        case .compare(let e, let ops):
            scan(e, wanted, &found)
            for (_, o) in ops { scan(o, wanted, &found) }
        case .conditional(let t, let a, let b):
            scan(t, wanted, &found); scan(a, wanted, &found)
            if let b { scan(b, wanted, &found) }
        }
    }
}
