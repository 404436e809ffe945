import LoomJSON

/// `unevaluatedProperties` and `unevaluatedItems` beside other applicators.
///
/// What such a keyword reaches depends on the annotations of the subschemas its schema applies
/// in place (`allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`, `dependentSchemas`, `$ref`,
/// `$dynamicRef`, recursively) that hold for the instance: never `not`, never a failed `if`, never
/// a schema that entered the conjunction from elsewhere (a sibling of an enclosing `allOf`). The
/// compiler expands every disjunction into alternatives, so inside one fully expanded alternative
/// the subschemas that hold are known, and so are the members and items they evaluate: the
/// keyword becomes one more object or array view (evaluated names and patterns exempt, its schema
/// on every other member; or its schema on the items past the evaluated prefix).
///
/// Three things make that exact. Each expansion records which branches its alternative makes
/// hold (`SchemaGroup.labels`, kept in the conjunction's `resolved` set). An `anyOf` whose
/// branches evaluate something is expanded into "exactly these branches hold" alternatives (the
/// others' complements added), since every branch that holds contributes, not only the one an
/// ordinary expansion picks. And an `if` with neither `then` nor `else`, which otherwise
/// constrains nothing, is expanded too when its condition evaluates something. Where a needed
/// complement does not exist, or an expansion happened before the keyword joined the
/// conjunction, the schema is refused with the keyword and its pointer.
extension JSONSchemaCompiler {
    /// Most `anyOf` branches that evaluate members or items one exact expansion distinguishes (one
    /// alternative per nonempty subset of them).
    static let maxAnnotatingBranches = 4

    /// What the subschemas in scope evaluate, for one kind of keyword.
    private struct Evaluated {
        var all = false
        var names: [String] = []
        var patterns: [String] = []
        var prefix = 0
        /// `contains` schemas: each evaluates the items it matches.
        var contains: [SchemaLoc] = []
    }

    /// A location as `collectObject` reads it: inside its own resource, in its dynamic scope.
    func reading(_ loc: SchemaLoc) -> (loc: SchemaLoc, base: String) {
        let base = resolver.baseInside(loc.value, base: loc.base)
        return (entered(loc.rebased(base), resource: base), base)
    }

    /// The locations `loc` applies in place to the same instance, every branch included.
    private mutating func inPlaceChildren(_ l: SchemaLoc, _ o: JSONObject, base: String) throws(GrammarError) -> [SchemaLoc] {
        var out: [SchemaLoc] = []
        if let ref = o["$ref"]?.stringValue { out.append(try refTarget(ref, from: l, base: base, pointer: l.pointer + "/$ref")) }
        if let ref = o["$dynamicRef"]?.stringValue { out.append(try dynamicTarget(ref, from: l, base: base, pointer: l.pointer + "/$dynamicRef")) }
        if let ref = o["$recursiveRef"]?.stringValue { out.append(try refTarget(ref, from: l, base: base, pointer: l.pointer + "/$recursiveRef")) }
        for k in ["allOf", "anyOf", "oneOf"] {
            if case .array(let xs) = o[k] ?? .null { out += xs.enumerated().map { l.child($0.element, k, String($0.offset)) } }
        }
        for k in ["if", "then", "else"] { if let v = o[k] { out.append(l.child(v, k)) } }
        for k in ["dependentSchemas", "dependencies"] {
            guard case .object(let deps) = o[k] ?? .null else { continue }
            for (name, d) in deps where d.arrayValue == nil { out.append(l.child(d, k, name)) }
        }
        if let i = o["$loom.loc"]?.intValue, i >= 0, i < locRegistry.count { out.append(locRegistry[i]) }
        return out
    }

    /// Whether `o` itself holds keywords that evaluate members (`items` false) or items.
    private func evaluates(_ o: JSONObject, items: Bool) -> Bool {
        items ? o["prefixItems"] != nil || o["items"] != nil || o["additionalItems"] != nil || o["contains"] != nil || o["unevaluatedItems"] != nil
            : o["properties"] != nil || o["patternProperties"] != nil || o["additionalProperties"] != nil || o["unevaluatedProperties"] != nil
    }

    /// Keys of the locations in `roots`' in-place trees, and whether any of them evaluates members
    /// or items of the `kinds` asked (false: members, true: items).
    private mutating func inPlaceTree(_ roots: [SchemaLoc], kinds: Set<Bool>) throws(GrammarError) -> (keys: Set<String>, evaluates: Bool) {
        var keys = Set<String>()
        var evaluatesAny = false
        var work = roots
        while let next = work.popLast() {
            guard case .object(let o) = next.value else { continue }
            let (l, base) = reading(next)
            guard keys.insert(l.key).inserted else { continue }
            try spend(1, pointer: l.pointer)
            if kinds.contains(where: { evaluates(o, items: $0) }) { evaluatesAny = true }
            work += try inPlaceChildren(l, o, base: base)
        }
        return (keys, evaluatesAny)
    }

    /// Marks the groups an `unevaluated*` keyword of this conjunction reads, and turns the bare
    /// `if`s among them whose condition evaluates something into groups of their own.
    mutating func markAnnotationGroups(_ f: inout SchemaFacts, resolved: Set<String>) throws(GrammarError) {
        let kinds = Set(f.unevaluated.map(\.items))
        let tree = try inPlaceTree(f.unevaluated.map(\.owner), kinds: kinds).keys
        for i in f.groups.indices where tree.contains(f.groups[i].owner) { f.groups[i].exactAnnotations = true }
        for c in f.bareConditions where tree.contains(c.owner) && !resolved.contains(c.key) {
            guard try inPlaceTree([c.cond], kinds: kinds).evaluates else { continue }
            let notCond: SchemaLoc
            do { notCond = try negate(c.cond) } catch {
                try unsupported("if", c.pointer, "the condition evaluates what \(f.unevaluated[0].keyword) reads and has no exact complement: \(error.reason)")
                continue
            }
            f.groups.append(SchemaGroup(key: c.key, keyword: "if", pointer: c.pointer, alternatives: [[c.cond], [notCond]], exclusive: false,
                                        labels: ["then", "else"], owner: c.owner, exactAnnotations: true))
        }
    }

    /// The group to expand next, rewritten when an `unevaluated*` keyword reads it, and the
    /// `resolved` set of each of its alternatives (recording which branches hold when some
    /// keyword of the conjunction will read it).
    mutating func expansion(of g0: SchemaGroup, _ f: SchemaFacts, resolved: Set<String>) throws(GrammarError) -> (SchemaGroup, [Set<String>]) {
        var g = g0
        if g.exactAnnotations && !g.exclusive && g.keyword != "if" && g.keyword != "dependentSchemas" && g.keyword != "dependencies" {
            g = try exactAnyOf(g, kinds: Set(f.unevaluated.map(\.items)))
        }
        var done = resolved
        done.insert(g.key)
        if f.unevaluated.isEmpty { return (g, Array(repeating: done, count: g.alternatives.count)) }
        return (g, g.labels.map { done.union([g.key + "\u{4}" + $0]) })
    }

    /// `anyOf` as "exactly this set of the branches that evaluate something holds": each nonempty
    /// subset of them with the complements of the rest, then each other branch with the
    /// complements of all of them.
    private mutating func exactAnyOf(_ g: SchemaGroup, kinds: Set<Bool>) throws(GrammarError) -> SchemaGroup {
        let branches = g.alternatives.map { $0[0] }
        var annotating: [Int] = [], silent: [Int] = []
        for (i, br) in branches.enumerated() {
            if try inPlaceTree([br], kinds: kinds).evaluates { annotating.append(i) } else { silent.append(i) }
        }
        if annotating.isEmpty { return g }
        let keyword = kinds.contains(true) && kinds.count == 1 ? "unevaluatedItems" : "unevaluatedProperties"
        if annotating.count > Self.maxAnnotatingBranches {
            try unsupported(keyword, g.pointer, "more than \(Self.maxAnnotatingBranches) \(g.keyword) branches evaluate what \(keyword) reads")
            return g
        }
        var complements: [Int: SchemaLoc] = [:]
        for i in annotating {
            do { complements[i] = try negate(branches[i]) } catch {
                try unsupported(keyword, g.pointer + "/\(i)", "which \(g.keyword) branches hold decides what \(keyword) reads, and branch \(i) has no exact complement (\(error.reason))")
                return g
            }
        }
        var out = g
        out.alternatives = []
        out.labels = []
        for mask in 1..<(1 << annotating.count) {
            let holds = annotating.indices.filter { mask >> $0 & 1 == 1 }.map { annotating[$0] }
            out.alternatives.append(holds.map { branches[$0] } + annotating.filter { !holds.contains($0) }.map { complements[$0]! })
            out.labels.append("S:" + holds.map(String.init).joined(separator: ","))
        }
        for i in silent {
            out.alternatives.append([branches[i]] + annotating.map { complements[$0]! })
            out.labels.append("S:")
        }
        return out
    }

    /// Which branches of the group `key` hold in this alternative: nil when it was not expanded
    /// with them recorded; `exact` false when more may hold than the ones listed.
    private func heldBranches(_ key: String, resolved: Set<String>) -> (label: String, indices: [Int], exact: Bool)? {
        let prefix = key + "\u{4}"
        guard let entry = resolved.first(where: { $0.hasPrefix(prefix) }) else { return nil }
        let label = String(entry.dropFirst(prefix.count))
        if label.hasPrefix("S:") { return (label, label.dropFirst(2).split(separator: ",").compactMap { Int($0) }, true) }
        if label.hasPrefix("A:") { return (label, [Int(label.dropFirst(2)) ?? -1], false) }
        return (label, Int(label).map { [$0] } ?? [], true)
    }

    /// Turns each pending `unevaluated*` keyword of a fully expanded conjunction into a view.
    mutating func resolveUnevaluated(_ f: inout SchemaFacts, resolved: Set<String>) throws(GrammarError) {
        let pending = f.unevaluated
        f.unevaluated = []
        for u in pending {
            guard let e = try evaluated(u, resolved: resolved) else { continue }
            if e.all { continue }
            let exempt = SchemaLoc(synthetic: .bool(true), base: u.owner.base, pointer: u.owner.pointer)
            if u.items {
                var rest = u.schema
                if !e.contains.isEmpty {
                    // An item past the prefix is evaluated when some `contains` in scope matches it.
                    let refs = ([u.schema] + e.contains).map { JSONValue.object(JSONObject([("$loom.loc", .number(JSONNumber(registered($0))))])) }
                    rest = SchemaLoc(synthetic: .object(JSONObject([("anyOf", .array(refs))])), base: u.owner.base, pointer: u.pointer)
                }
                f.arrayViews.append(ArrayView(prefix: Array(repeating: exempt, count: e.prefix), rest: rest))
            } else {
                f.objectViews.append(ObjectView(properties: e.names.map { ($0, exempt) }, patterns: e.patterns.map { ($0, exempt) },
                                                additional: u.schema, pointer: u.owner.pointer))
            }
        }
    }

    /// The index of `loc` in `locRegistry`, registering it.
    private mutating func registered(_ loc: SchemaLoc) -> Int {
        if let i = locRegistryIndex[loc.key] { return i }
        locRegistry.append(loc)
        locRegistryIndex[loc.key] = locRegistry.count - 1
        return locRegistry.count - 1
    }

    /// What the subschemas in `u`'s scope that hold in this alternative evaluate (nil after a
    /// refusal in lenient mode: the keyword is then ignored).
    private mutating func evaluated(_ u: UnevaluatedKeyword, resolved: Set<String>) throws(GrammarError) -> Evaluated? {
        var e = Evaluated()
        var seen = Set<String>()
        var work: [SchemaLoc] = [u.owner]
        let items = u.items
        let ownerKey = reading(u.owner).loc.key
        while let next = work.popLast() {
            guard case .object(let o) = next.value else { continue }
            let (l, base) = reading(next)
            guard seen.insert(l.key).inserted else { continue }
            try spend(1, pointer: l.pointer)
            let isOwner = l.key == ownerKey
            if items {
                if case .array(let xs) = o["prefixItems"] ?? .null, draft >= .draft2020_12 { e.prefix = max(e.prefix, xs.count) }
                if case .array(let xs) = o["items"] ?? .null {
                    e.prefix = max(e.prefix, xs.count)
                    if o["additionalItems"] != nil { e.all = true }
                } else if o["items"] != nil {
                    e.all = true
                }
                if o["unevaluatedItems"] != nil && !isOwner { e.all = true }
                if let c = o["contains"] { e.contains.append(l.child(c, "contains")) }
            } else {
                if case .object(let props) = o["properties"] ?? .null { e.names += props.keys }
                if case .object(let pats) = o["patternProperties"] ?? .null { e.patterns += pats.keys }
                if o["additionalProperties"] != nil || (o["unevaluatedProperties"] != nil && !isOwner) { e.all = true }
            }
            if e.all { return e }
            if let ref = o["$ref"]?.stringValue { work.append(try refTarget(ref, from: l, base: base, pointer: l.pointer + "/$ref")) }
            if let ref = o["$dynamicRef"]?.stringValue { work.append(try dynamicTarget(ref, from: l, base: base, pointer: l.pointer + "/$dynamicRef")) }
            if let ref = o["$recursiveRef"]?.stringValue { work.append(try refTarget(ref, from: l, base: base, pointer: l.pointer + "/$recursiveRef")) }
            if let i = o["$loom.loc"]?.intValue, i >= 0, i < locRegistry.count { work.append(locRegistry[i]) }
            if case .array(let xs) = o["allOf"] ?? .null { work += xs.enumerated().map { l.child($0.element, "allOf", String($0.offset)) } }
            for k in ["anyOf", "oneOf"] {
                guard case .array(let xs) = o[k] ?? .null else { continue }
                let branches = xs.enumerated().map { l.child($0.element, k, String($0.offset)) }
                let held = heldBranches(l.key + "/" + k, resolved: resolved)
                if let held, held.exact {
                    work += held.indices.filter { $0 >= 0 && $0 < branches.count }.map { branches[$0] }
                } else if try inPlaceTree(branches, kinds: [items]).evaluates {
                    try unsupported(u.keyword, u.pointer, "which \(k) branches at \(l.pointer.isEmpty ? "#" : l.pointer) hold is not known where \(u.keyword) is enforced")
                    return nil
                }
            }
            if let cond = o["if"] {
                let parts = [l.child(cond, "if")] + ["then", "else"].compactMap { k in o[k].map { l.child($0, k) } }
                switch heldBranches(l.key + "/if", resolved: resolved)?.label {
                case "then": work += [l.child(cond, "if")] + (o["then"].map { [l.child($0, "then")] } ?? [])
                case "else": if let x = o["else"] { work.append(l.child(x, "else")) }
                default:
                    if try inPlaceTree(parts, kinds: [items]).evaluates {
                        try unsupported(u.keyword, u.pointer, "whether the if at \(l.pointer.isEmpty ? "#" : l.pointer) holds is not known where \(u.keyword) is enforced")
                        return nil
                    }
                }
            }
            for k in ["dependentSchemas", "dependencies"] {
                guard case .object(let deps) = o[k] ?? .null else { continue }
                for (name, d) in deps where d.arrayValue == nil {
                    let dep = l.child(d, k, name)
                    switch heldBranches(l.key + "/" + k + "/" + name, resolved: resolved)?.label {
                    case "p": work.append(dep)
                    case "n", "a": continue
                    default:
                        if try inPlaceTree([dep], kinds: [items]).evaluates {
                            try unsupported(u.keyword, u.pointer, "whether \(k) '\(name)' applies is not known where \(u.keyword) is enforced")
                            return nil
                        }
                    }
                }
            }
        }
        return e
    }
}
