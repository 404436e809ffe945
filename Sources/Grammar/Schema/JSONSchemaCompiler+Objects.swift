import LoomJSON

/// Objects: members in any order, each declared property at most once.
///
/// A `type: object` schema compiles in four steps: the key constraints of `propertyNames`, the
/// declared names (every name some keyword needs to track), one member per declared name, and the
/// members for every other key (`patternProperties` and `additionalProperties`).
extension JSONSchemaCompiler {
    mutating func objectNode(_ f: SchemaFacts, pointer: String) throws(GrammarError) -> Int32 {
        let views = f.objectViews
        let nameFacts = try propertyNameFacts(f, pointer: pointer)
        let names = Self.declaredNames(f)
        let declared = try declaredMembers(names, views: views, nameFacts: nameFacts, pointer: pointer)
        for r in f.required where declared.impossible.contains(r) { return b.add(.fail) }
        let extra = try extraMembers(f, declaredNames: names, nameFacts: nameFacts)
        var spec = try objectSpecNode(f, members: declared.members, index: declared.index, extra: extra, pointer: pointer)
        if !f.memberWitnesses.isEmpty, case .object(var o) = b.nodes[Int(spec)] {
            let witnesses = f.memberWitnesses
            if witnesses.count > Self.maxWitnesses {
                try unsupported("not", witnesses[Self.maxWitnesses].pointer,
                                "more than \(Self.maxWitnesses) complements of member keywords in one object")
            }
            o.witnessCount = witnesses.count
            // Each nonempty set of witnesses a member may claim at once: its key qualifies for
            // all of them and its value breaks all of them.
            for claims in 1..<Int32(1 << witnesses.count) {
                let set = witnesses.indices.filter { claims >> Int32($0) & 1 == 1 }.map { witnesses[$0] }
                for (i, name) in names.enumerated() {
                    var qualifies = true
                    for w in set where try !witnessKeyAdmitted(w, name) { qualifies = false }
                    if !qualifies { continue }
                    let schemas = try declaredValueSchemas(name, views: views)
                    if try !keyAdmitted(name, by: nameFacts) || schemas.closedOut { continue }
                    let value = try compileConj(schemas.conj + set.map(\.value), resolved: [])
                    if b.isEmptyLanguage(value) { continue }
                    var key = ""
                    JSONValue.writeString(name, into: &key)
                    o.witnessDeclared.append(i)
                    o.witnessDeclaredNodes.append(b.add(.seq([b.literal(key), ws, b.literal(":"), ws, value])))
                    o.witnessDeclaredClaims.append(claims)
                }
                let extra = try extraMembers(f, declaredNames: names, nameFacts: nameFacts, witnesses: set)
                o.witnessExtraMembers += extra
                o.witnessExtraClaims += Array(repeating: claims, count: extra.count)
            }
            // Some witness no member can be: the object can never close.
            let witnessed = (o.witnessDeclaredClaims + o.witnessExtraClaims).reduce(Int32(0)) { $0 | $1 }
            spec = witnessed != Int32(1 << witnesses.count) - 1 ? b.add(.fail) : b.add(.object(o))
        }
        return spec
    }

    /// Most complements of member keywords one object enforces together (a member node per
    /// nonempty set of them it may witness at once).
    static let maxWitnesses = 3

    /// Whether a key qualifies as the witness's member.
    mutating func witnessKeyAdmitted(_ w: MemberWitness, _ name: String) throws(GrammarError) -> Bool {
        let bytes = Array(name.utf8)
        if w.excludedNames.contains(name) { return false }
        for re in w.excludedPatterns where try patternDFA(re, w.pointer).matches(bytes) { return false }
        if let re = w.pattern { return try patternDFA(re, w.pointer).matches(bytes) }
        return true
    }

    /// The string keywords of `propertyNames`, which every key must satisfy (nil when absent).
    private mutating func propertyNameFacts(_ f: SchemaFacts, pointer: String) throws(GrammarError) -> SchemaFacts? {
        guard !f.propertyNames.isEmpty else { return nil }
        let nf = try collect(f.propertyNames, resolved: [])
        if !nf.groups.isEmpty || nf.constrainsContainers {
            try unsupported("propertyNames", pointer + "/propertyNames", "only string keywords are supported in propertyNames")
        }
        return nf
    }

    /// Declared names in order: properties, then the names `required`, `dependentRequired` and
    /// negated `required` need to track.
    private static func declaredNames(_ f: SchemaFacts) -> [String] {
        var names: [String] = []
        func addName(_ n: String) { if !names.contains(n) { names.append(n) } }
        for v in f.objectViews { for (n, _) in v.properties { addName(n) } }
        for n in f.required { addName(n) }
        for (k, deps) in f.dependentRequired { addName(k); deps.forEach(addName) }
        for set in f.notRequired { set.forEach(addName) }
        return names
    }

    /// A `patternProperties` pattern, which matches anywhere in a key.
    private mutating func patternDFA(_ re: String, _ pointer: String) throws(GrammarError) -> ByteDFA {
        try regex(re, .search, keyword: "patternProperties", pointer: pointer)
    }

    /// One member per declared name (`"name": value`), its index by name, and the names whose
    /// value is impossible (they may not appear at all).
    private mutating func declaredMembers(_ names: [String], views: [ObjectView], nameFacts: SchemaFacts?,
                                          pointer: String) throws(GrammarError) -> (members: [Int32], index: [String: Int], impossible: Set<String>) {
        var members: [Int32] = []
        var index: [String: Int] = [:]
        var impossible: Set<String> = []
        for name in names {
            try spend(1 + views.count, pointer: pointer)
            let schemas = try declaredValueSchemas(name, views: views)
            let closedOut = try !keyAdmitted(name, by: nameFacts) || schemas.closedOut
            let value = closedOut ? b.add(.fail) : try compileConj(schemas.conj, resolved: [])
            if b.isEmptyLanguage(value) { impossible.insert(name) }
            var key = ""
            JSONValue.writeString(name, into: &key)
            index[name] = members.count
            members.append(b.isEmptyLanguage(value) ? b.add(.fail) : b.add(.seq([b.literal(key), ws, b.literal(":"), ws, value])))
        }
        return (members, index, impossible)
    }

    /// The schemas a declared name's value must satisfy in every combined object view, and whether
    /// a closed view (no `additionalProperties` under `closedObjects`) rules the name out.
    /// `patternProperties` apply to declared names too; `additionalProperties` only to the rest.
    private mutating func declaredValueSchemas(_ name: String, views: [ObjectView]) throws(GrammarError) -> (conj: [SchemaLoc], closedOut: Bool) {
        var conj: [SchemaLoc] = []
        var closedOut = false
        for v in views {
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
        return (conj, closedOut)
    }

    /// Whether `propertyNames` admits `name` as a key.
    private mutating func keyAdmitted(_ name: String, by nameFacts: SchemaFacts?) throws(GrammarError) -> Bool {
        guard let nf = nameFacts else { return true }
        if nf.impossible { return false }
        let admits = try stringAdmits(nf, name)
        if let e = nf.enumValues { return e.contains(.string(name)) && admits }
        return (nf.types ?? allJSONTypes).contains("string") && admits && !nf.notValues.contains(.string(name))
    }

    /// What every key outside the declared names must satisfy: not a declared name, the
    /// `propertyNames` string keywords, and (added by the caller) the patterns it must or must not match.
    private struct KeyConstraint {
        var dfas: [ByteDFA]
        var minLength = 0
        var maxLength = -1
        var allowed = true
    }

    private mutating func keyConstraint(declaredNames names: [String], nameFacts: SchemaFacts?) throws(GrammarError) -> KeyConstraint {
        var key = KeyConstraint(dfas: [excluding(names)])
        guard let nf = nameFacts else { return key }
        if nf.impossible { key.allowed = false; return key }
        if let e = nf.enumValues {
            let allowed = e.compactMap(\.stringValue)
            key.dfas.append(ByteDFA.words(allowed.map { Array($0.utf8) }))
        }
        if !(nf.types ?? allJSONTypes).contains("string") { key.allowed = false }
        let (d, m) = try stringDFAs(nf)
        key.dfas += d
        key.minLength = nf.minLength
        key.maxLength = m
        return key
    }

    /// The key string node of `key` narrowed by `dfas`, or `fail` when no key qualifies.
    private mutating func keyNode(_ key: KeyConstraint, _ dfas: [ByteDFA]) -> Int32 {
        if dfas.contains(where: \.isEmpty) || !key.allowed || (key.maxLength >= 0 && key.minLength > key.maxLength) { return b.add(.fail) }
        var s = StringSpec()
        s.minLength = key.minLength
        s.maxLength = key.maxLength
        s.dfas = dfas.map { b.addDFA($0) }
        return b.add(.string(s))
    }

    /// Members for keys not declared: one per set of matching patterns, then one for keys no
    /// pattern matches (`additionalProperties`). Members whose value is impossible are left out.
    /// With a `witness`, only the members whose key qualifies for it, with values satisfying it too.
    private mutating func extraMembers(_ f: SchemaFacts, declaredNames names: [String], nameFacts: SchemaFacts?,
                                       witnesses: [MemberWitness] = []) throws(GrammarError) -> [Int32] {
        let views = f.objectViews
        var key = try keyConstraint(declaredNames: names, nameFacts: nameFacts)
        let witnessValue = witnesses.map(\.value)
        for w in witnesses {
            if !w.excludedNames.isEmpty { key.dfas.append(excluding(w.excludedNames)) }
            for re in w.excludedPatterns { key.dfas.append(try patternDFA(re, w.pointer).complement) }
            if let re = w.pattern { key.dfas.append(try patternDFA(re, w.pointer)) }
        }
        var extra: [Int32] = []
        let closedByDefault = options.closedObjects && views.contains { $0.additional == nil }
        // Every combined view's patterns, each once (a pattern two views share is one key region).
        var patterns: [(source: String, pointer: String, view: String)] = []
        for v in views {
            for (re, s) in v.patterns where !patterns.contains(where: { $0.source == re }) { patterns.append((re, s.pointer, v.pointer)) }
        }
        if !patterns.isEmpty {
            let dfas = try patterns.map { p throws(GrammarError) in try patternDFA(p.source, p.pointer) }
            if dfas.count > 6 { try refuseOverlappingPatterns(patterns, dfas) }
            if !closedByDefault {
                extra += try patternMembers(views, patterns.map(\.source), dfas, key: key, extraValues: witnessValue)
            }
            key.dfas += dfas.map(\.complement)
        }
        if !closedByDefault && !(views.isEmpty && options.closedObjects) {
            let value = try compileConj(views.compactMap(\.additional) + witnessValue, resolved: [])
            if !b.isEmptyLanguage(value) {
                extra.append(b.add(.seq([keyNode(key, key.dfas), ws, b.literal(":"), ws, value])))
            }
        }
        return extra.filter { id in
            // Drop members whose value is the canonical empty language.
            if case .seq(let xs) = b.nodes[Int(id)], let last = xs.last { return b.nodes[Int(last)] != .fail || !b.isEmptyLanguage(last) }
            return true
        }
    }

    /// More than six patterns are compiled one member each, which is exact only when no key
    /// matches two of them.
    private mutating func refuseOverlappingPatterns(_ patterns: [(source: String, pointer: String, view: String)], _ dfas: [ByteDFA]) throws(GrammarError) {
        for i in 0..<dfas.count {
            for j in (i + 1)..<max(i + 1, dfas.count) where !ByteDFA.disjoint(dfas[i], dfas[j]) {
                try unsupported("patternProperties", patterns[i].view + "/patternProperties",
                                "patterns '\(patterns[i].source)' and '\(patterns[j].source)' can match the same key")
            }
        }
    }

    /// A key matching several patterns must satisfy all their schemas: one member per set of
    /// patterns, its key matching exactly that set (one member per pattern when none overlap).
    /// Each view whose patterns the key matches none of adds its `additionalProperties`.
    private mutating func patternMembers(_ views: [ObjectView], _ sources: [String], _ dfas: [ByteDFA], key: KeyConstraint,
                                         extraValues: [SchemaLoc]) throws(GrammarError) -> [Int32] {
        let n = dfas.count
        let overlapping = (0..<n).contains { i in ((i + 1)..<max(i + 1, n)).contains { !ByteDFA.disjoint(dfas[i], dfas[$0]) } }
        let subsets: [[Int]] = overlapping && n <= 6
            ? (1..<(1 << n)).map { m in (0..<n).filter { m >> $0 & 1 == 1 } }
            : (0..<n).map { [$0] }
        var members: [Int32] = []
        for set in subsets {
            var keyDFAs = key.dfas + set.map { dfas[$0] }
            if overlapping { keyDFAs += (0..<n).filter { !set.contains($0) }.map { dfas[$0].complement } }
            var conj: [SchemaLoc] = []
            for v in views {
                var matched = false
                for (re, s) in v.patterns where set.contains(where: { sources[$0] == re }) {
                    conj.append(s)
                    matched = true
                }
                if !matched, let a = v.additional { conj.append(a) }
            }
            let value = try compileConj(conj + extraValues, resolved: [])
            if b.isEmptyLanguage(value) { continue }
            members.append(b.add(.seq([keyNode(key, keyDFAs), ws, b.literal(":"), ws, value])))
        }
        return members
    }

    /// The object node: members, required and dependency indices, property counts; `fail` when
    /// the counts or negated `required` sets contradict each other.
    private mutating func objectSpecNode(_ f: SchemaFacts, members: [Int32], index: [String: Int], extra: [Int32],
                                         pointer: String) throws(GrammarError) -> Int32 {
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
}
