import LoomJSON

/// Arrays: prefix items, the rest, `contains` counts and unique items over finite domains.
extension JSONSchemaCompiler {
    /// Most `contains` schemas one array enforces together (each item position compiles one
    /// node per nonempty subset of them).
    static let maxCoveredContains = 4

    mutating func arrayNode(_ f: SchemaFacts, pointer: String) throws(GrammarError) -> Int32 {
        let views = f.arrayViews
        let prefixCount = views.map(\.prefix.count).max() ?? 0
        // `contains`: split every position into items matching it (counted) and items not matching.
        var match: SchemaLoc?, noMatch: SchemaLoc?
        // Several `contains` without counts, or one whose schema has no exact complement but
        // needs no count beyond "at least one": each item claims the ones it matches (see
        // `ArraySpec.coverCount`); no complements needed, since claiming less is always allowed.
        var cover = f.contains.count > 1 ? f.contains : []
        if let c = f.contains.first, f.contains.count == 1, f.maxContains == nil, (f.minContains ?? 1) == 1,
           (try? negate(c)) == nil {
            cover = [c]
        }
        if let c = cover.first {
            if f.minContains != nil || f.maxContains != nil {
                try unsupported("contains", c.pointer, "several contains with minContains/maxContains in one array")
            }
            if cover.count > Self.maxCoveredContains {
                try unsupported("contains", c.pointer, "more than \(Self.maxCoveredContains) contains in one array")
            }
            if f.uniqueItems != nil { try unsupported("contains", c.pointer, "contains with uniqueItems") }
        }
        if let c = f.contains.first, cover.isEmpty {
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
        // Per position, the nodes of each nonempty set of `contains` an item there may claim.
        func claims(_ conj: [SchemaLoc]) throws(GrammarError) -> [Int32] {
            var nodes: [Int32] = []
            for t in 1..<(1 << cover.count) {
                let claimed = cover.indices.filter { t & (1 << $0) != 0 }.map { cover[$0] }
                let n = try compileConj(conj + claimed, resolved: [])
                nodes.append(b.isEmptyLanguage(n) ? -1 : n)
            }
            return nodes
        }
        var coverPrefix: [[Int32]] = []
        if !cover.isEmpty {
            for i in 0..<prefixCount {
                var conj: [SchemaLoc] = []
                for v in views {
                    if i < v.prefix.count { conj.append(v.prefix[i]) } else if let r = v.rest { conj.append(r) }
                }
                coverPrefix.append(try claims(conj))
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
        if !cover.isEmpty {
            spec.coverCount = cover.count
            spec.coverPrefix = coverPrefix
            spec.coverItems = items == nil ? nil : try claims(restConj)
        }
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
            } else if !itemFacts.unevaluated.isEmpty {
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
