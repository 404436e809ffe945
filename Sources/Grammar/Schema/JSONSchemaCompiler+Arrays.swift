import LoomJSON

/// Arrays: prefix items, the rest, `contains` counts and unique items over finite domains.
extension JSONSchemaCompiler {
    mutating func arrayNode(_ f: SchemaFacts, pointer: String) throws(GrammarError) -> Int32 {
        let views = f.arrayViews
        let prefixCount = views.map(\.prefix.count).max() ?? 0
        // `contains`: split every position into items matching it (counted) and items not matching.
        var match: SchemaLoc?, noMatch: SchemaLoc?
        if let c = f.contains.first {
            if f.contains.count > 1 { try unsupported("contains", c.pointer, "several contains in one array") }
            if f.uniqueItems != nil { try unsupported("contains", c.pointer, "contains with uniqueItems") }
            do {
                noMatch = try negate(c)
                match = c
            } catch {
                try unsupported("contains", c.pointer, "the contains schema has no exact complement (\(error.reason))")
            }
        }
        var prefix: [Int32] = [], containsPrefix: [Int32] = []
        for i in 0..<prefixCount {
            var conj: [SchemaLoc] = []
            for v in views {
                if i < v.prefix.count { conj.append(v.prefix[i]) } else if let r = v.rest { conj.append(r) }
            }
            if let match, let noMatch {
                prefix.append(try compileConj(conj + [noMatch], resolved: []))
                containsPrefix.append(try compileConj(conj + [match], resolved: []))
            } else {
                prefix.append(try compileConj(conj, resolved: []))
            }
        }
        let restConj = views.compactMap(\.rest)
        var items: Int32? = try compileConj(restConj + (noMatch.map { [$0] } ?? []), resolved: [])
        var containsItems: Int32? = try match.map { m throws(GrammarError) in try compileConj(restConj + [m], resolved: []) }
        if let c = containsItems, b.isEmptyLanguage(c) { containsItems = nil }
        if let it = items, b.isEmptyLanguage(it) { items = nil }
        // A prefix item with an empty language caps the array before it.
        var maxItems = f.maxItems
        if match == nil, let firstImpossible = prefix.firstIndex(where: { b.isEmptyLanguage($0) }) {
            maxItems = maxItems < 0 ? firstImpossible : min(maxItems, firstImpossible)
            prefix = Array(prefix[..<firstImpossible])
            items = nil
        }
        var spec = ArraySpec()
        spec.prefix = prefix
        spec.items = items
        spec.minItems = f.minItems
        spec.maxItems = maxItems
        spec.whitespace = options.whitespace
        if match != nil {
            spec.hasContains = true
            spec.containsPrefix = containsPrefix
            spec.containsItems = containsItems
            spec.minContains = f.minContains ?? 1
            spec.maxContains = f.maxContains ?? -1
            if spec.maxContains >= 0 && spec.minContains > spec.maxContains { return b.add(.fail) }
        }
        if maxItems >= 0 && f.minItems > maxItems { return b.add(.fail) }
        if let u = f.uniqueItems, maxItems < 0 || maxItems > 1 {
            // Unique items over a finite domain: each value at most once.
            let itemFacts = try collect(restConj, resolved: [])
            var domain: [JSONValue]?
            if !prefix.isEmpty {
                domain = nil
            } else if itemFacts.groups.isEmpty, let e = itemFacts.enumValues {
                domain = try finiteValues(itemFacts, e, pointer: pointer)
            } else if itemFacts.groups.isEmpty, let t = itemFacts.types, t.isSubset(of: ["boolean", "null"]) {
                domain = (t.contains("null") ? [JSONValue.null] : []) + (t.contains("boolean") ? [.bool(false), .bool(true)] : [])
                domain = domain!.filter { !itemFacts.notValues.contains($0) }
            }
            if let d = domain {
                // Distinct by JSON equality (numbers by value).
                var unique: [JSONValue] = []
                for v in d where !unique.contains(v) { unique.append(v) }
                spec.uniqueChoices = unique.map { literalNode($0) }
                spec.items = nil
            } else {
                try unsupported("uniqueItems", u, "uniqueItems is enforced only over finite item domains (enum, boolean)")
            }
        }
        return b.add(.array(spec))
    }
}
