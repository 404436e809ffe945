import LoomJSON

/// `not` and `oneOf`: complements pushed down to keywords with exact complements.
extension JSONSchemaCompiler {
    /// A schema accepting exactly the instances `loc` rejects (memoised: a `oneOf` negates each
    /// branch once per other branch that may overlap it).
    mutating func negate(_ loc: SchemaLoc) throws(GrammarError) -> SchemaLoc {
        if let known = negationMemo[loc.key] { return known }
        let made = try negateUncached(loc)
        negationMemo[loc.key] = made
        return made
    }

    private mutating func negateUncached(_ loc: SchemaLoc) throws(GrammarError) -> SchemaLoc {
        let base = resolver.baseInside(loc.value, base: loc.base)
        // The complement is evaluated where `loc` is: inside its resource, in its dynamic scope.
        let scope = entered(loc.rebased(base), resource: base).scope
        func syn(_ v: JSONValue) -> SchemaLoc { SchemaLoc(synthetic: v, base: base, pointer: loc.pointer, scope: scope) }
        func obj(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }
        func fail(_ kw: String, _ why: String) -> GrammarError {
            GrammarError(.unsupported, keyword: "not", pointer: loc.pointer + "/" + kw, why)
        }
        switch loc.value {
        case .bool(let x): return syn(.bool(!x))
        case .object(let o):
            if o.count == 1, let i = o["$loom.loc"]?.intValue, i >= 0, i < locRegistry.count { return try negate(locRegistry[i]) }
            var parts: [JSONValue] = []
            for k in ["$ref", "$dynamicRef"] {
                guard let r = o[k] else { continue }
                let others = o.keys.filter { !JSONSchemaCompiler.annotationKeywords.contains($0) && $0 != k }
                if (k == "$ref" && draft < .draft2019_09) || others.isEmpty {
                    guard let ref = r.stringValue else { throw fail(k, "\(k) must be a string") }
                    negationDepth += 1
                    defer { negationDepth -= 1 }
                    if negationDepth > 32 { throw fail(k, "the complement of a recursive reference is not supported") }
                    let from = syn(.bool(true))
                    let target = k == "$ref" ? try refTarget(ref, from: from, base: base, pointer: loc.pointer + "/$ref")
                        : try dynamicTarget(ref, from: from, base: base, pointer: loc.pointer + "/$dynamicRef")
                    return try negate(target)
                }
                parts.append(obj([("not", obj([(k, r)]))]))
            }
            for (k, v) in o {
                if JSONSchemaCompiler.annotationKeywords.contains(k) { continue }
                switch k {
                case "$ref", "$dynamicRef", "nullable", "then", "else", "additionalItems", "$dynamicAnchor": continue
                case "type":
                    var t: Set<String> = []
                    if let s = v.stringValue { t = [s] } else if case .array(let xs) = v { for x in xs { if let s = x.stringValue { t.insert(s) } } }
                    if o["nullable"] == .bool(true) { t.insert("null") }
                    if t.contains("number") { t.insert("integer") }
                    var restSet = allJSONTypes.subtracting(t).subtracting(["integer"])
                    if t.contains("integer") { restSet.remove("number") }
                    let rest = restSet.sorted()
                    let others: JSONValue = obj([("type", .array(rest.map { .string($0) }))])
                    if t.contains("integer") && !t.contains("number") {
                        // Not an integer: any other type, or a number with a non-integral value.
                        parts.append(obj([("anyOf", .array([others, obj([("type", "number"), ("$loom.nonInteger", true)])]))]))
                    } else {
                        parts.append(others)
                    }
                case "enum": parts.append(obj([("$loom.notEnum", v)]))
                case "const": parts.append(obj([("$loom.notEnum", .array([v]))]))
                case "required":
                    guard case .array(let xs) = v else { continue }
                    if xs.isEmpty { continue }
                    parts.append(obj([("type", "object"), ("$loom.notRequired", v)]))
                case "not": parts.append(v)
                case "allOf":
                    guard case .array(let xs) = v else { continue }
                    parts.append(obj([("anyOf", .array(xs.map { obj([("not", $0)]) }))]))
                case "anyOf":
                    guard case .array(let xs) = v else { continue }
                    parts.append(obj([("allOf", .array(xs.map { obj([("not", $0)]) }))]))
                case "oneOf":
                    guard case .array(let xs) = v, !xs.isEmpty else { throw fail(k, "oneOf must be a non-empty array") }
                    parts.append(try notExactlyOne(xs, loc.rebased(base), fail: fail))
                case "pattern": parts.append(obj([("type", "string"), ("$loom.notPattern", v)]))
                case "format":
                    guard let s = v.stringValue else { continue }
                    if JSONSchemaFormats.unsupported.contains(s) { throw fail(k, "format '\(s)' is not supported") }
                    if JSONSchemaFormats.regex(s) != nil { parts.append(obj([("type", "string"), ("$loom.notFormat", v)])) }
                case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
                    guard case .number(let n) = v, let c = n.intValue else { continue }
                    let (type, other, value): (String, String, Int) = switch k {
                    case "minLength": ("string", "maxLength", c - 1)
                    case "maxLength": ("string", "minLength", c + 1)
                    case "minItems": ("array", "maxItems", c - 1)
                    case "maxItems": ("array", "minItems", c + 1)
                    case "minProperties": ("object", "maxProperties", c - 1)
                    default: ("object", "minProperties", c + 1)
                    }
                    if value < 0 { continue }  // `minX: 0` always holds
                    parts.append(obj([("type", .string(type)), (other, .number(JSONNumber(value)))]))
                case "minimum":
                    let excl = draft == .draft4 && o["exclusiveMinimum"] == .bool(true)
                    parts.append(obj([("type", "number"), ("$loom.max", .array([v, .bool(!excl)]))]))
                case "maximum":
                    let excl = draft == .draft4 && o["exclusiveMaximum"] == .bool(true)
                    parts.append(obj([("type", "number"), ("$loom.min", .array([v, .bool(!excl)]))]))
                case "exclusiveMinimum":
                    if case .bool = v { continue }
                    parts.append(obj([("type", "number"), ("$loom.max", .array([v, false]))]))
                case "exclusiveMaximum":
                    if case .bool = v { continue }
                    parts.append(obj([("type", "number"), ("$loom.min", .array([v, false]))]))
                case "properties", "patternProperties", "additionalProperties":
                    // The three together, once: some member breaks them. `additionalProperties`
                    // covers the keys the other two leave.
                    if k != "properties" && o["properties"] != nil { continue }
                    if k == "additionalProperties" && o["patternProperties"] != nil { continue }
                    let props = o["properties"]?.objectValue ?? JSONObject()
                    let patterns = o["patternProperties"]?.objectValue ?? JSONObject()
                    for (name, s) in props {
                        parts.append(obj([("type", "object"), ("required", .array([.string(name)])),
                                          ("properties", obj([(name, obj([("not", s)]))]))]))
                    }
                    for (re, s) in patterns {
                        parts.append(obj([("type", "object"),
                                          ("$loom.someMember", obj([("pattern", .string(re)), ("value", obj([("not", s)]))]))]))
                    }
                    if let a = o["additionalProperties"], a != .bool(true) {
                        let names = JSONValue.array(props.keys.map { .string($0) })
                        let excluded = JSONValue.array(patterns.keys.map { .string($0) })
                        parts.append(obj([("type", "object"),
                                          ("$loom.someMember", obj([("names", names), ("notPatterns", excluded), ("value", obj([("not", a)]))]))]))
                    }
                case "items" where v != .bool(true):
                    // Some item fails the items schema: `contains` of its complement. Exact only
                    // where `items` covers every item (a schema, with no prefix in front of it).
                    let isSchema: Bool = { if case .array = v { return false }; return true }()
                    guard isSchema, draft < .draft2020_12 || o["prefixItems"] == nil else {
                        throw fail(k, "the complement of items after a prefix is not supported")
                    }
                    parts.append(obj([("type", "array"), ("contains", obj([("not", v)]))]))
                case "prefixItems" where draft >= .draft2020_12 && (o["items"] == nil || o["items"] == .bool(true)):
                    // Some prefix position holds an item failing its schema (`items` beside it, if
                    // any, is `true`; a schema there is refused under `items`).
                    guard case .array(let xs) = v else { continue }
                    for (i, x) in xs.enumerated() where x != .bool(true) {
                        let prefix = Array(repeating: JSONValue.bool(true), count: i) + [obj([("not", x)])]
                        parts.append(obj([("type", "array"), ("minItems", .number(JSONNumber(i + 1))), ("prefixItems", .array(prefix))]))
                    }
                case "items", "prefixItems", "unevaluatedItems", "unevaluatedProperties":
                    if v == .bool(true) { continue }
                    throw fail(k, "the complement of \(k) is not supported")
                case "contains":
                    // No item matches it: every item fails it. Exact for the default count (at
                    // least one); `minContains: 0` never fails; other counts are not complemented.
                    let counts = draft >= .draft2019_09
                    let least = counts ? o["minContains"].map { $0.intValue ?? -1 } ?? 1 : 1
                    let most = counts ? o["maxContains"] : nil
                    if least == 0 && most == nil { continue }
                    guard least == 1, most == nil else {
                        throw fail(k, "the complement of contains with minContains/maxContains is not supported")
                    }
                    parts.append(obj([("type", "array"), ("items", obj([("not", v)]))]))
                case "uniqueItems":
                    if v == .bool(false) { continue }
                    throw fail(k, "the complement of uniqueItems is not supported")
                default:
                    if k.hasPrefix("$loom.") || ["if", "dependencies", "dependentRequired", "dependentSchemas",
                                                  "multipleOf", "propertyNames", "$recursiveRef"].contains(k) {
                        throw fail(k, "the complement of \(k) is not supported")
                    }
                    continue  // annotation
                }
            }
            if parts.isEmpty { return syn(.bool(false)) }
            return syn(parts.count == 1 ? parts[0] : obj([("anyOf", .array(parts))]))
        default:
            throw GrammarError(.syntax, keyword: "not", pointer: loc.pointer, "a schema must be an object or a boolean")
        }
    }

    /// The complement of `oneOf`: no branch holds, or two hold together. Pairs proved disjoint
    /// can never hold together and are left out, so a discriminated `oneOf` (the common case)
    /// costs one alternative.
    private mutating func notExactlyOne(_ xs: [JSONValue], _ loc: SchemaLoc,
                                        fail: (String, String) -> GrammarError) throws(GrammarError) -> JSONValue {
        func obj(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }
        if xs.count == 1 { return obj([("not", xs[0])]) }
        var facts: [SchemaFacts] = []
        for (i, x) in xs.enumerated() { facts.append(try collect([loc.child(x, "oneOf", String(i))], resolved: [])) }
        var alternatives: [JSONValue] = [obj([("allOf", .array(xs.map { obj([("not", $0)]) }))])]
        for i in 0..<xs.count where !facts[i].impossible {
            for j in (i + 1)..<xs.count where !facts[j].impossible && !disjoint(facts[i], facts[j]) {
                alternatives.append(obj([("allOf", .array([xs[i], xs[j]]))]))
            }
        }
        // Each overlapping pair is a branch of its own; past this many the expansion would cost
        // more than the alternatives budget allows anyway.
        if alternatives.count > 64 { throw fail("oneOf", "the complement of oneOf has too many overlapping branch pairs") }
        return alternatives.count == 1 ? alternatives[0] : obj([("anyOf", .array(alternatives))])
    }

    /// `oneOf`: branch i holds and every branch not provably disjoint from it fails. Disjointness
    /// is proved among instances of the types `within` (the enclosing schema's `type`), when given.
    mutating func oneOfGroup(_ branches: [SchemaLoc], key: String, pointer: String,
                             within: Set<String>? = nil) throws(GrammarError) -> SchemaGroup {
        // Collecting the branches recurses outside `compileConj`, whose stack check it bypasses.
        guard stack.hasRoom() else {
            throw GrammarError(.limit, keyword: "depth", pointer: pointer,
                               "schema nesting or $ref chain too deep for the calling thread's stack")
        }
        var facts: [SchemaFacts] = []
        for br in branches { facts.append(try collect([br], resolved: [])) }
        var scoped = facts
        if let within { for i in scoped.indices { scoped[i].restrictTypes(within) } }
        // Disjointness is symmetric: prove each pair once.
        var apart = [[Bool]](repeating: [Bool](repeating: false, count: branches.count), count: branches.count)
        for i in 0..<branches.count where !facts[i].impossible {
            for j in (i + 1)..<branches.count where !facts[j].impossible {
                apart[i][j] = disjoint(scoped[i], scoped[j])
                apart[j][i] = apart[i][j]
            }
        }
        var alts: [[SchemaLoc]] = []
        var labels: [String] = []
        for i in 0..<branches.count {
            if facts[i].impossible { continue }
            var alt = [branches[i]]
            for j in 0..<branches.count where j != i && !facts[j].impossible {
                if apart[i][j] { continue }
                do {
                    alt.append(try negate(branches[j]))
                } catch {
                    try unsupported("oneOf", pointer, "branches \(i) and \(j) may overlap and branch \(j) has no exact complement (\(error.reason))")
                }
            }
            alts.append(alt)
            labels.append(String(i))
        }
        if alts.isEmpty {
            alts = [[SchemaLoc(synthetic: .bool(false), base: branches[0].base, pointer: pointer)]]
            labels = ["none"]
        }
        return SchemaGroup(key: key, keyword: "oneOf", pointer: pointer, alternatives: alts, exclusive: true, labels: labels)
    }

    private func effectiveTypes(_ f: SchemaFacts) -> Set<String> {
        var t = f.types ?? allJSONTypes
        if t.contains("number") { t.insert("integer") }
        if let e = f.enumValues {
            var fromEnum: Set<String> = []
            for v in e {
                switch v {
                case .null: fromEnum.insert("null")
                case .bool: fromEnum.insert("boolean")
                case .number: fromEnum.formUnion(["number", "integer"])
                case .string: fromEnum.insert("string")
                case .array: fromEnum.insert("array")
                case .object: fromEnum.insert("object")
                }
            }
            t.formIntersection(fromEnum)
        }
        return t
    }

    /// A sound (incomplete) proof that no instance satisfies both.
    mutating func disjoint(_ a: SchemaFacts, _ b: SchemaFacts) -> Bool {
        var common = effectiveTypes(a).intersection(effectiveTypes(b))
        if common.contains("integer") && !common.contains("number") {
            // Both admit integers only through one of them saying number: still overlap.
        }
        if common.isEmpty { return true }
        if let x = a.enumValues, let y = b.enumValues, !x.contains(where: { y.contains($0) }) { return true }
        if let x = a.enumValues, x.allSatisfy({ b.notValues.contains($0) }) { return true }
        if let y = b.enumValues, y.allSatisfy({ a.notValues.contains($0) }) { return true }
        // Remove types for which a keyword-level proof exists; disjoint when none remain.
        if common.contains("object") && objectsDisjoint(a, b) { common.remove("object") }
        if common.isSubset(of: ["number", "integer"]) && !common.isEmpty, numbersDisjoint(a, b) { common = [] }
        if common == ["string"], stringsDisjoint(a, b) { common = [] }
        return common.isEmpty
    }

    private func numbersDisjoint(_ a: SchemaFacts, _ b: SchemaFacts) -> Bool {
        func below(_ x: SchemaFacts, _ y: SchemaFacts) -> Bool {
            guard let (mx, ex) = x.maximum, let (my, ey) = y.minimum else { return false }
            let c = ExactDecimal.compare(mx, my)
            return c < 0 || (c == 0 && (ex || ey))
        }
        return below(a, b) || below(b, a)
    }

    private mutating func stringsDisjoint(_ a: SchemaFacts, _ b: SchemaFacts) -> Bool {
        for (pa, _) in a.patterns {
            for (pb, _) in b.patterns {
                if let x = try? regex(pa, .search, keyword: "pattern", pointer: ""), let y = try? regex(pb, .search, keyword: "pattern", pointer: ""),
                   ByteDFA.disjoint(x, y) { return true }
            }
        }
        return false
    }

    private mutating func propertyFacts(_ f: SchemaFacts, _ name: String) -> SchemaFacts? {
        var locs: [SchemaLoc] = []
        for v in f.objectViews { if let s = v.property(name) { locs.append(s) } }
        if locs.isEmpty { return nil }
        let key = locs.map(\.key).joined(separator: "\u{0}")
        if let known = propertyFactsMemo[key] { return known }
        guard disjointWorkBudget > 0 else { return nil }
        disjointWorkBudget -= 1
        let facts = try? collect(locs, resolved: [])
        propertyFactsMemo[key] = facts
        return facts
    }

    private mutating func forbids(_ f: SchemaFacts, _ name: String) -> Bool {
        if f.notRequired.contains([name]) { return true }
        for v in f.objectViews {
            if let s = v.property(name) {
                if s.value == .bool(false) { return true }
                continue
            }
            if v.additional?.value == .bool(false) {
                var matched = false
                for (re, _) in v.patterns {
                    if (try? regex(re, .search, keyword: "patternProperties", pointer: ""))?.matches(Array(name.utf8)) ?? true { matched = true }
                }
                if !matched { return true }
            }
        }
        return false
    }

    private mutating func objectsDisjoint(_ a: SchemaFacts, _ b: SchemaFacts) -> Bool {
        for k in a.required where forbids(b, k) { return true }
        for k in b.required where forbids(a, k) { return true }
        for k in Set(a.required).union(b.required) {
            // Counted before `propertyFacts`: collecting a property's facts compiles its `oneOf`s,
            // which ask this again, so through a recursive `$ref` the check after it was never
            // reached and the proof recursed until the stack overflowed (a MaskBench schema).
            if disjointDepth > 4 { break }
            disjointDepth += 1
            defer { disjointDepth -= 1 }
            guard let fa = propertyFacts(a, k), let fb = propertyFacts(b, k) else { continue }
            if disjoint(fa, fb) { return true }
        }
        return false
    }
}
