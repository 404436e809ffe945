import LoomJSON

/// Objects and arrays: members in any order, each declared property at most once.
extension JSONSchemaCompiler {
    mutating func objectNode(_ f: SchemaFacts, pointer: String) throws(GrammarError) -> Int32 {
        let views = f.objectViews
        let patternViews = views.filter { !$0.patterns.isEmpty }
        if patternViews.count > 1 {
            try unsupported("patternProperties", patternViews[1].pointer, "patternProperties in more than one combined schema")
        }
        // Key constraints from propertyNames.
        var nameFacts: SchemaFacts?
        if !f.propertyNames.isEmpty {
            let nf = try collect(f.propertyNames, resolved: [])
            if !nf.groups.isEmpty || nf.constrainsContainers {
                try unsupported("propertyNames", pointer + "/propertyNames", "only string keywords are supported in propertyNames")
            }
            nameFacts = nf
        }
        func patternDFA(_ re: String, _ ptr: String) throws(GrammarError) -> ByteDFA {
            try regex(re, .search, keyword: "patternProperties", pointer: ptr)
        }
        // Declared names: properties, then names other keywords need to track.
        var names: [String] = []
        func addName(_ n: String) { if !names.contains(n) { names.append(n) } }
        for v in views { for (n, _) in v.properties { addName(n) } }
        for n in f.required { addName(n) }
        for (k, deps) in f.dependentRequired { addName(k); deps.forEach(addName) }
        for set in f.notRequired { set.forEach(addName) }

        var members: [Int32] = []
        var index: [String: Int] = [:]
        var impossibleNames: Set<String> = []
        for name in names {
            try spend(1 + views.count, pointer: pointer)
            var conj: [SchemaLoc] = []
            var closedOut = false
            for v in views {
                // patternProperties apply to declared names too; additionalProperties only to the rest.
                var matched = false
                if let s = v.property(name) { conj.append(s); matched = true }
                for (re, s) in v.patterns where try patternDFA(re, s.pointer).matches(Array(name.utf8)) {
                    conj.append(s)
                    matched = true
                }
                if !matched {
                    if let a = v.additional { conj.append(a) } else if options.closedObjects { closedOut = true }
                }
            }
            if views.isEmpty && options.closedObjects { closedOut = true }
            if let nf = nameFacts, nf.impossible { closedOut = true } else if let nf = nameFacts {
                let admits = try stringAdmits(nf, name)
                let ok: Bool
                if let e = nf.enumValues { ok = e.contains(.string(name)) && admits } else {
                    ok = (nf.types ?? allJSONTypes).contains("string") && admits && !nf.notValues.contains(.string(name))
                }
                if !ok { closedOut = true }
            }
            let value = closedOut ? b.add(.fail) : try compileConj(conj, resolved: [])
            if b.isEmptyLanguage(value) {
                // A declared name whose value is impossible may not appear at all.
                impossibleNames.insert(name)
            }
            var key = ""
            JSONValue.writeString(name, into: &key)
            index[name] = members.count
            members.append(b.isEmptyLanguage(value) ? b.add(.fail) : b.add(.seq([b.literal(key), ws, b.literal(":"), ws, value])))
        }
        for r in f.required where impossibleNames.contains(r) { return b.add(.fail) }

        // Extra members: keys not declared, matched by a pattern or additionalProperties.
        var extra: [Int32] = []
        var keyBase: [ByteDFA] = [ByteDFA.excluding(names.map { Array($0.utf8) })]
        var keyMin = 0, keyMax = -1
        var keysAllowed = true
        if let nf = nameFacts, nf.impossible { keysAllowed = false } else if let nf = nameFacts {
            if let e = nf.enumValues {
                let allowed = e.compactMap(\.stringValue)
                keyBase.append(ByteDFA.words(allowed.map { Array($0.utf8) }))
            }
            if !(nf.types ?? allJSONTypes).contains("string") { keysAllowed = false }
            let (d, m) = try stringDFAs(nf)
            keyBase += d
            keyMin = nf.minLength
            keyMax = m
        }
        func keyNode(_ dfas: [ByteDFA]) -> Int32 {
            if dfas.contains(where: \.isEmpty) || !keysAllowed || (keyMax >= 0 && keyMin > keyMax) { return b.add(.fail) }
            var s = StringSpec()
            s.minLength = keyMin
            s.maxLength = keyMax
            s.dfas = dfas.map { b.addDFA($0) }
            return b.add(.string(s))
        }
        let patView = patternViews.first
        let othersAdditional: [SchemaLoc] = views.filter { $0.patterns.isEmpty }.compactMap(\.additional)
        let closedByDefault = options.closedObjects && views.contains { $0.additional == nil }
        if let pv = patView {
            let dfas = try pv.patterns.map { (re, s) throws(GrammarError) in try patternDFA(re, s.pointer) }
            if dfas.count > 6 {
                for i in 0..<dfas.count {
                    for j in (i + 1)..<max(i + 1, dfas.count) where !ByteDFA.disjoint(dfas[i], dfas[j]) {
                        try unsupported("patternProperties", pv.pointer + "/patternProperties",
                                        "patterns '\(pv.patterns[i].0)' and '\(pv.patterns[j].0)' can match the same key")
                    }
                }
            }
            if !closedByDefault {
                // A key matching several patterns must satisfy all their schemas: one member per set
                // of patterns, its key matching exactly that set.
                let n = dfas.count
                let overlapping = (0..<n).contains { i in ((i + 1)..<max(i + 1, n)).contains { !ByteDFA.disjoint(dfas[i], dfas[$0]) } }
                let subsets: [[Int]] = overlapping && n <= 6
                    ? (1..<(1 << n)).map { m in (0..<n).filter { m >> $0 & 1 == 1 } }
                    : (0..<n).map { [$0] }
                for set in subsets {
                    var keyDFAs = keyBase + set.map { dfas[$0] }
                    if overlapping { keyDFAs += (0..<n).filter { !set.contains($0) }.map { dfas[$0].complement } }
                    let value = try compileConj(set.map { pv.patterns[$0].1 } + othersAdditional, resolved: [])
                    if isCanonicalFail(value) { continue }
                    extra.append(b.add(.seq([keyNode(keyDFAs), ws, b.literal(":"), ws, value])))
                }
            }
            keyBase += dfas.map(\.complement)
        }
        let additional = views.compactMap(\.additional)
        if !closedByDefault && !(views.isEmpty && options.closedObjects) {
            let value = try compileConj(additional, resolved: [])
            if !b.isEmptyLanguage(value) {
                extra.append(b.add(.seq([keyNode(keyBase), ws, b.literal(":"), ws, value])))
            }
        }
        extra = extra.filter { id in
            // Drop members whose value is the canonical empty language.
            if case .seq(let xs) = b.nodes[Int(id)], let last = xs.last { return b.nodes[Int(last)] != .fail || !isCanonicalFail(last) }
            return true
        }

        var spec = ObjectSpec()
        spec.members = members
        spec.required = f.required.compactMap { index[$0] }
        spec.extraMembers = extra
        spec.minProperties = f.minProperties
        spec.maxProperties = f.maxProperties
        for (k, deps) in f.dependentRequired {
            spec.dependencyKeys.append(index[k]!)
            spec.dependencies.append(deps.compactMap { index[$0] })
        }
        spec.forbiddenTogether = f.notRequired.map { $0.compactMap { index[$0] } }
        if spec.forbiddenTogether.contains(where: \.isEmpty) { return b.add(.fail) }
        spec.schemaOrder = options.schemaOrder
        spec.whitespace = options.whitespace
        if spec.maxProperties >= 0 && spec.required.count > spec.maxProperties { return b.add(.fail) }
        if spec.members.count > 4096 { throw GrammarError(.limit, keyword: "properties", pointer: pointer, "too many properties") }
        return b.add(.object(spec))
    }

    private func isCanonicalFail(_ id: Int32) -> Bool { b.isEmptyLanguage(id) }

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
        if let c = containsItems, isCanonicalFail(c) { containsItems = nil }
        if let it = items, isCanonicalFail(it) { items = nil }
        // A prefix item with an empty language caps the array before it.
        var maxItems = f.maxItems
        if match == nil, let firstImpossible = prefix.firstIndex(where: isCanonicalFail) {
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

extension Grammar {
    /// Compiles a JSON Schema given as JSON text.
    public convenience init(jsonSchema text: String, options: JSONSchemaOptions = JSONSchemaOptions()) throws(GrammarError) {
        let value: JSONValue
        let depth = try JSONSchemaCompiler.checkDepth(text: text)
        // The parser recurses once per level and cannot check as it goes: without room for the
        // whole depth, refuse here rather than overflow the calling thread's stack.
        guard StackGuard().hasRoom(bytes: UInt(depth + 1) * JSONSchemaCompiler.parseBytesPerLevel) else {
            throw GrammarError(.limit, keyword: "depth", pointer: "",
                               "schema nested \(depth) levels deep: too deep to parse on the calling thread's stack")
        }
        do { value = try JSONValue(parsing: text, maximumDepth: JSONSchemaCompiler.maximumDepth) } catch {
            throw GrammarError(.syntax, keyword: "json", pointer: "", error.description)
        }
        try self.init(jsonSchema: value, options: options)
    }

    /// Compiles a JSON Schema.
    public convenience init(jsonSchema schema: JSONValue, options: JSONSchemaOptions = JSONSchemaOptions()) throws(GrammarError) {
        let g = try JSONSchemaCompiler.compile(schema, options: options)
        self.init(nodes: g.nodes, dfas: g.dfas, root: g.root, warnings: g.warnings)
    }
}
