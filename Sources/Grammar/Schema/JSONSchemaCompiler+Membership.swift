import LoomJSON

/// Whether a known JSON value satisfies a conjunction of schemas: how `enum`/`const` members that
/// are objects or arrays are checked against the object and array keywords beside them. A member
/// that passes compiles to its literal; one that fails is dropped, so the enum stays exact.
extension JSONSchemaCompiler {
    /// Whether `value` satisfies every schema in `locs`. Disjunctions are expanded as the
    /// compiler expands them (a `oneOf` alternative already excludes the other branches), so the
    /// value is admitted when one alternative admits it.
    mutating func admits(_ value: JSONValue, _ locs: [SchemaLoc], resolved: Set<String> = []) throws(GrammarError) -> Bool {
        let pointer = locs.first?.pointer ?? ""
        guard stack.hasRoom() else {
            throw GrammarError(.limit, keyword: "depth", pointer: pointer,
                               "schema nesting or $ref chain too deep for the calling thread's stack")
        }
        try spend(locs.count, pointer: pointer)
        var f = try collect(locs, resolved: resolved)
        if f.impossible { return false }
        if let g0 = f.groups.first {
            let (g, done) = try expansion(of: g0, f, resolved: resolved)
            for (alternative, r) in zip(g.alternatives, done) {
                if try admits(value, locs + alternative, resolved: r) { return true }
            }
            return false
        }
        try resolveUnevaluated(&f, resolved: resolved)
        if let e = f.enumValues, !e.contains(value) { return false }
        return try factsAdmit(f, value, pointer: pointer)
    }

    /// Whether `value` satisfies the keywords of a folded conjunction with no disjunctions left
    /// (`enum` is the caller's to check).
    mutating func factsAdmit(_ f: SchemaFacts, _ value: JSONValue, pointer: String) throws(GrammarError) -> Bool {
        let types = f.types ?? allJSONTypes
        switch value {
        case .null, .bool, .number, .string:
            return try !finiteValues(f, [value], pointer: pointer).isEmpty
        case .object(let o):
            guard types.contains("object"), !f.notValues.contains(value) else { return false }
            if o.count < f.minProperties || (f.maxProperties >= 0 && o.count > f.maxProperties) { return false }
            for name in f.required where o[name] == nil { return false }
            for (name, deps) in f.dependentRequired where o[name] != nil {
                for d in deps where o[d] == nil { return false }
            }
            for set in f.notRequired where set.allSatisfy({ o[$0] != nil }) { return false }
            for w in f.memberWitnesses {
                var found = false
                for (name, member) in o.members where try witnessKeyAdmitted(w, name) {
                    if try admits(member, [w.value]) { found = true; break }
                }
                if !found { return false }
            }
            for (name, member) in o.members {
                if !f.propertyNames.isEmpty, try !admits(.string(name), f.propertyNames) { return false }
                // As for generated members: `properties` and matching `patternProperties` apply to
                // a key, `additionalProperties` only where neither names it (per schema).
                var conj: [SchemaLoc] = []
                for view in f.objectViews {
                    var matched = false
                    if let s = view.property(name) { conj.append(s); matched = true }
                    for (re, s) in view.patterns
                    where try regex(re, .search, keyword: "patternProperties", pointer: s.pointer).matches(Array(name.utf8)) {
                        conj.append(s)
                        matched = true
                    }
                    if !matched, let a = view.additional { conj.append(a) }
                }
                if !conj.isEmpty, try !admits(member, conj) { return false }
            }
            return true
        case .array(let items):
            guard types.contains("array"), !f.notValues.contains(value) else { return false }
            if items.count < f.minItems || (f.maxItems >= 0 && items.count > f.maxItems) { return false }
            if f.uniqueItems != nil {
                for i in items.indices {
                    for j in (i + 1)..<items.count where items[i] == items[j] { return false }
                }
            }
            for (i, item) in items.enumerated() {
                var conj: [SchemaLoc] = []
                for view in f.arrayViews {
                    if i < view.prefix.count { conj.append(view.prefix[i]) } else if let r = view.rest { conj.append(r) }
                }
                if !conj.isEmpty, try !admits(item, conj) { return false }
            }
            if f.contains.count > 1 && (f.minContains != nil || f.maxContains != nil) {
                // The counts were folded across the schemas; which count belongs to which
                // `contains` is lost.
                try unsupported("contains", f.contains[1].pointer, "several contains with minContains/maxContains in one array")
            }
            for c in f.contains {
                var matches = 0
                for item in items where try admits(item, [c]) { matches += 1 }
                if matches < (f.minContains ?? 1) || matches > (f.maxContains ?? Int.max) { return false }
            }
            return true
        }
    }
}
