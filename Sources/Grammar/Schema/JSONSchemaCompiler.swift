import LoomJSON

/// JSON Schema → grammar IR.
///
/// A schema position is compiled as a *conjunction* of schema locations (what `allOf` and `$ref`
/// produce), memoised by the set of locations so recursive schemas become recursive grammars.
/// Disjunctions are expanded into alternatives; `not` is pushed inward (De Morgan) down to
/// keywords that have exact complements (`type`, `const`/`enum`, `required`, `pattern`, `format`,
/// bounds); `oneOf` is enforced as "this branch and not the others", using proofs of exclusivity
/// (types, discriminating `const`s, required-vs-forbidden keys) where they exist. Anything left
/// that cannot be enforced exactly is a `GrammarError` naming the keyword and the JSON pointer,
/// unless `lenient` is set.
struct JSONSchemaCompiler {
    let options: JSONSchemaOptions
    let draft: JSONSchemaDraft
    var resolver: SchemaResolver
    var b = GrammarBuilder()
    var memo: [String: Int32] = [:]
    var ws: Int32 = 0
    var alternativesBudget = 4096
    var negationDepth = 0
    var disjointDepth = 0
    /// Complements already built, by the negated schema's key.
    var negationMemo: [String: SchemaLoc] = [:]
    /// Property facts already folded for the disjointness proofs, by property locations: `oneOf`
    /// branches compared pairwise ask for the same properties again and again.
    var propertyFactsMemo: [String: SchemaFacts?] = [:]
    /// Property folds the disjointness proofs may still spend. A proof that runs out is simply
    /// not found (sound: the branches are then treated as possibly overlapping), so a schema with
    /// many wide `oneOf`s compiles in bounded time instead of minutes.
    var disjointWorkBudget = 20_000
    /// Work the whole compilation may still spend, in schema locations handled (one per location a
    /// conjunction names, memoised or not; one per keyword read; one per object member built). Every other limit bounds one dimension (states,
    /// alternatives, subschemas); this one bounds their product, so a schema whose combinations
    /// stay each under their limit still fails in about a second with a typed error instead of
    /// compiling for minutes. Calibrated on MaskBench's 2,500 schemas: the largest that compiles
    /// spends 65,000 units; the slowest refusal (11 s before it ran out of alternatives) 16 million.
    var workBudget = JSONSchemaCompiler.workLimit
    static let workLimit = 250_000
    /// Subset-construction work the schema's patterns may still spend (`ByteNFA`).
    var regexWorkBudget = ByteNFA.maxSchemaDeterminizeWork
    /// Patterns that failed to compile, by mode and source.
    var regexFailures: [String: GrammarError] = [:]
    /// Locations synthetic schemas point at with `{"$loom.loc": index}` (a disjunction of
    /// subschemas from different resources, which one JSON value cannot spell).
    var locRegistry: [SchemaLoc] = []
    var locRegistryIndex: [String: Int] = [:]
    /// Compiled patterns by mode and source (schemas repeat patterns across branches).
    var regexCache: [String: ByteDFA] = [:]
    /// "Every string but these" automata by their strings: an object's key constraint is built
    /// again for each set of member witnesses and each view of a shared definition.
    var exclusionCache: [[String]: ByteDFA] = [:]
    /// Compilation recurses with schema nesting and `$ref` chains: this turns running out of the
    /// calling thread's stack into a typed error.
    let stack = StackGuard()

    /// Every byte string except `strings`' UTF-8 (`ByteDFA.excluding`), built once per set.
    mutating func excluding(_ strings: [String]) -> ByteDFA {
        if let known = exclusionCache[strings] { return known }
        let d = ByteDFA.excluding(strings.map { Array($0.utf8) })
        exclusionCache[strings] = d
        return d
    }

    mutating func regex(_ p: String, _ mode: RegexMode, keyword: String, pointer: String) throws(GrammarError) -> ByteDFA {
        let key = (mode == .search ? "s:" : "f:") + p
        if let d = regexCache[key] { return d }
        // A pattern that failed fails again at no cost (the oneOf proofs probe patterns with `try?`).
        if let e = regexFailures[key] { throw GrammarError(e.kind, keyword: keyword, pointer: pointer, e.reason) }
        do {
            let d = try RegexCompiler.compile(p, mode: mode, keyword: keyword, pointer: pointer, sharedBudget: &regexWorkBudget)
            regexCache[key] = d
            return d
        } catch {
            regexFailures[key] = error
            throw error
        }
    }

    static let annotationKeywords: Set<String> = [
        "$schema", "$id", "id", "$comment", "title", "description", "examples", "default", "$defs", "definitions",
        "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary", "deprecated", "readOnly", "writeOnly",
        "contentEncoding", "contentMediaType", "contentSchema", "discriminator", "xml", "externalDocs", "example",
    ]

    /// The draft named by the root's `$schema`, else the options' default.
    static func draft(of root: JSONValue, options: JSONSchemaOptions) -> JSONSchemaDraft {
        if case .object(let o) = root, let s = o["$schema"]?.stringValue, let x = JSONSchemaDraft(schemaURI: s) { return x }
        return options.defaultDraft
    }

    init(root: JSONValue, options: JSONSchemaOptions) {
        self.options = options
        let d = JSONSchemaCompiler.draft(of: root, options: options)
        draft = d
        resolver = SchemaResolver(root: root, draft: d, remotes: options.remoteDocuments)
    }

    static func compile(_ root0: JSONValue, options: JSONSchemaOptions) throws(GrammarError) -> Grammar {
        // Depth first: the vocabulary pass below walks the schema recursively too.
        try checkDepth(root0)
        for (_, doc) in options.remoteDocuments { try checkDepth(doc) }
        let vocabularyRoot = try JSONSchemaVocabularies.apply(to: root0, remotes: options.remoteDocuments)
        let root = try JSONSchemaVocabularies.applyDraft(JSONSchemaCompiler.draft(of: vocabularyRoot, options: options), to: vocabularyRoot)
        var c = JSONSchemaCompiler(root: root, options: options)
        c.ws = options.whitespace ? c.b.add(.rep(c.b.add(.bytes(.jsonWhitespace)), min: 0, max: -1)) : c.b.add(.literal([]))
        let rootLoc = SchemaLoc(value: root, base: SchemaResolver.defaultBase, pointer: "")
        let value = try c.compileConj([rootLoc], resolved: [])
        // An unsatisfiable schema keeps its empty language: leading whitespace must not be
        // allowed in front of a value that can never come (the first mask is empty).
        let top = options.whitespace && !c.b.isEmptyLanguage(value) ? c.b.add(.seq([c.ws, value, c.ws])) : value
        return try c.b.finish(root: top, what: "$ref")
    }

    /// Charges `units` against the whole compilation's work budget.
    mutating func spend(_ units: Int, pointer: String) throws(GrammarError) {
        workBudget -= units
        if workBudget < 0 {
            throw GrammarError(.limit, keyword: "schema", pointer: pointer,
                               "schema needs more than \(JSONSchemaCompiler.workLimit) units of compilation work (combinations of anyOf/oneOf/if branches over large subschemas)")
        }
    }

    /// Fails in strict mode; records a warning in lenient mode.
    mutating func unsupported(_ keyword: String, _ pointer: String, _ why: String) throws(GrammarError) {
        if options.lenient {
            b.warnings.append("\(pointer.isEmpty ? "#" : pointer) (\(keyword)): \(why) — ignored")
            return
        }
        throw GrammarError(.unsupported, keyword: keyword, pointer: pointer, why)
    }

    // MARK: - Conjunctions

    mutating func compileConj(_ locs: [SchemaLoc], resolved: Set<String>) throws(GrammarError) -> Int32 {
        let key = locs.map(\.key).sorted().joined(separator: "\u{1}") + "\u{2}" + resolved.sorted().joined(separator: "\u{1}")
        try spend(locs.count, pointer: locs.first?.pointer ?? "")
        if let id = memo[key] { return id }
        guard stack.hasRoom() else {
            throw GrammarError(.limit, keyword: "depth", pointer: locs.first?.pointer ?? "",
                               "schema nesting or $ref chain too deep for the calling thread's stack")
        }
        if memo.count > 50_000 || b.nodes.count > 500_000 {
            throw GrammarError(.limit, keyword: "$ref", pointer: locs.first?.pointer ?? "", "schema expands to too many distinct subschemas")
        }
        let ph = b.placeholder()
        memo[key] = ph
        let facts = try collect(locs, resolved: resolved)
        let body: Int32
        if facts.impossible {
            body = b.add(.fail)
        } else if let g0 = facts.groups.first {
            let (g, done) = try expansion(of: g0, facts, resolved: resolved)
            alternativesBudget -= g.alternatives.count
            if alternativesBudget < 0 {
                throw GrammarError(.limit, keyword: g.keyword, pointer: g.pointer, "too many combinations of anyOf/oneOf branches")
            }
            var alts: [Int32] = []
            for (a, r) in zip(g.alternatives, done) {
                alts.append(try compileConj(locs + a, resolved: r))
            }
            body = b.alt(alts)
        } else {
            var facts = facts
            try resolveUnevaluated(&facts, resolved: resolved)
            body = try buildTyped(facts, pointer: locs.first?.pointer ?? "")
        }
        b.define(ph, .seq([body]))
        if b.isEmptyLanguage(body) {
            // Callers test for the empty language to drop members and items; give them the
            // canonical node (the placeholder stays valid for recursive references).
            let fail = b.add(.fail)
            memo[key] = fail
            return fail
        }
        return ph
    }

    /// Folds the conjunction into facts. Groups whose key is in `resolved` were already expanded.
    mutating func collect(_ locs: [SchemaLoc], resolved: Set<String>) throws(GrammarError) -> SchemaFacts {
        var f = SchemaFacts()
        var queue = locs
        var seen = Set<String>()
        while let loc = queue.popLast() {
            guard seen.insert(loc.key).inserted else { continue }
            if case .object(let o) = loc.value { try spend(1 + o.count, pointer: loc.pointer) }
            if seen.count > 5000 {
                throw GrammarError(.limit, keyword: "allOf", pointer: loc.pointer, "schema expands to too many combined subschemas")
            }
            switch loc.value {
            case .bool(true): continue
            case .bool(false): f.impossible = true; continue
            case .object(let o): try collectObject(o, loc, &f, &queue, resolved)
            default:
                throw GrammarError(.syntax, keyword: "schema", pointer: loc.pointer, "a schema must be an object or a boolean")
            }
        }
        if let t = f.types, t.isEmpty { f.impossible = true }
        if !f.unevaluated.isEmpty { try markAnnotationGroups(&f, resolved: resolved) }
        return f
    }

    private func number(_ v: JSONValue?, _ kw: String, _ p: String) throws(GrammarError) -> ExactDecimal? {
        guard let v else { return nil }
        guard case .number(let n) = v, let d = ExactDecimal(n.literal) else {
            throw GrammarError(.syntax, keyword: kw, pointer: p, "\(kw) must be a number")
        }
        return d
    }

    private func count(_ v: JSONValue?, _ kw: String, _ p: String) throws(GrammarError) -> Int? {
        guard let v else { return nil }
        guard case .number(let n) = v, let d = ExactDecimal(n.literal), d.isInteger, !d.negative else {
            throw GrammarError(.syntax, keyword: kw, pointer: p, "\(kw) must be a non-negative integer")
        }
        return n.intValue ?? Int.max
    }

    private func strings(_ v: JSONValue?, _ kw: String, _ p: String) throws(GrammarError) -> [String] {
        guard let v else { return [] }
        guard case .array(let xs) = v else { throw GrammarError(.syntax, keyword: kw, pointer: p, "\(kw) must be an array of strings") }
        var out: [String] = []
        for x in xs {
            guard let s = x.stringValue else { throw GrammarError(.syntax, keyword: kw, pointer: p, "\(kw) must be an array of strings") }
            out.append(s)
        }
        return out
    }

    private mutating func collectObject(_ o: JSONObject, _ loc0: SchemaLoc, _ f: inout SchemaFacts,
                                        _ queue: inout [SchemaLoc], _ resolved: Set<String>) throws(GrammarError) {
        let (loc, base) = reading(loc0)
        let p = loc.pointer
        func kp(_ k: String) -> String { p + "/" + k }

        if let r = o["$ref"] {
            guard let ref = r.stringValue else { throw GrammarError(.syntax, keyword: "$ref", pointer: kp("$ref"), "$ref must be a string") }
            queue.append(try refTarget(ref, from: loc, base: base, pointer: kp("$ref")))
            // Before 2019-09, keywords beside `$ref` are ignored.
            if draft < .draft2019_09 { return }
        }
        if let r = o["$dynamicRef"] {
            guard let ref = r.stringValue else { throw GrammarError(.syntax, keyword: "$dynamicRef", pointer: kp("$dynamicRef"), "$dynamicRef must be a string") }
            queue.append(try dynamicTarget(ref, from: loc, base: base, pointer: kp("$dynamicRef")))
        }
        if let r = o["$recursiveRef"], let ref = r.stringValue {
            // Behaves as `$ref` unless its target opts into recursion, which is not supported.
            let target = try refTarget(ref, from: loc, base: base, pointer: kp("$recursiveRef"))
            if case .object(let t) = target.value, t["$recursiveAnchor"] == .bool(true) {
                try unsupported("$recursiveRef", kp("$recursiveRef"), "$recursiveAnchor rebinding is not supported")
            }
            queue.append(target)
        }

        for (k, v) in o {
            if JSONSchemaCompiler.annotationKeywords.contains(k) || k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" { continue }
            switch k {
            case "type":
                guard let t = JSONSchemaCompiler.declaredTypes(o) else {
                    throw GrammarError(.syntax, keyword: "type", pointer: kp(k), "type must be a string or an array")
                }
                for s in t where !allJSONTypes.contains(s) {
                    throw GrammarError(.syntax, keyword: "type", pointer: kp(k), "unknown type '\(s)'")
                }
                f.restrictTypes(t)
            case "nullable": continue
            case "enum", "const":
                var values: [JSONValue]
                if k == "const" { values = [v] } else {
                    guard case .array(let xs) = v else { throw GrammarError(.syntax, keyword: "enum", pointer: kp(k), "enum must be an array") }
                    values = xs
                }
                if o["nullable"] == .bool(true), k == "enum" { values.append(.null) }
                if let cur = f.enumValues { f.enumValues = cur.filter { values.contains($0) } } else { f.enumValues = values }
            case "allOf":
                guard case .array(let xs) = v else { throw GrammarError(.syntax, keyword: k, pointer: kp(k), "allOf must be an array") }
                for (i, x) in xs.enumerated() { queue.append(loc.child(x, k, String(i))) }
            case "anyOf", "oneOf":
                guard case .array(let xs) = v, !xs.isEmpty else { throw GrammarError(.syntax, keyword: k, pointer: kp(k), "\(k) must be a non-empty array") }
                let gk = loc.key + "/" + k
                if resolved.contains(gk) { continue }
                let branches = xs.enumerated().map { loc.child($0.element, k, String($0.offset)) }
                if k == "anyOf" || branches.count == 1 {
                    f.groups.append(SchemaGroup(key: gk, keyword: k, pointer: kp(k), alternatives: branches.map { [$0] }, exclusive: false,
                                                labels: branches.indices.map { "A:\($0)" }, owner: loc.key))
                } else {
                    // The schema's own `type` holds beside the branches: they need only be
                    // disjoint within it (a `oneOf` of objects told apart by a `const` property,
                    // under `"type": "object"`, is then an `anyOf`).
                    var g = try oneOfGroup(branches, key: gk, pointer: kp(k), within: JSONSchemaCompiler.declaredTypes(o))
                    g.owner = loc.key
                    f.groups.append(g)
                }
            case "not":
                queue.append(try negate(loc.child(v, "not")))
            case "if":
                let gk = loc.key + "/if"
                if resolved.contains(gk) { continue }
                let cond = loc.child(v, "if")
                let then = o["then"].map { loc.child($0, "then") }
                let els = o["else"].map { loc.child($0, "else") }
                if then == nil && els == nil {
                    f.bareConditions.append((gk, loc.key, cond, kp("if")))
                    continue
                }
                let notCond: SchemaLoc
                do { notCond = try negate(cond) } catch {
                    try unsupported("if", kp("if"), "the condition has no exact complement: \(error.reason)")
                    continue
                }
                f.groups.append(SchemaGroup(key: gk, keyword: "if", pointer: kp("if"),
                                            alternatives: [[cond] + (then.map { [$0] } ?? []), [notCond] + (els.map { [$0] } ?? [])],
                                            exclusive: false, labels: ["then", "else"], owner: loc.key))
            case "then", "else": continue
            case "minLength": f.minLength = max(f.minLength, try count(v, k, kp(k))!)
            case "maxLength":
                let m = try count(v, k, kp(k))!
                f.maxLength = f.maxLength < 0 ? m : min(f.maxLength, m)
            case "pattern":
                guard let s = v.stringValue else { throw GrammarError(.syntax, keyword: k, pointer: kp(k), "pattern must be a string") }
                f.patterns.append((s, kp(k)))
            case "format":
                guard let s = v.stringValue else { continue }
                f.formats.append((s, kp(k)))
            case "minimum":
                let d = try number(v, k, kp(k))!
                f.tightenMin(d, draft == .draft4 && o["exclusiveMinimum"] == .bool(true))
            case "maximum":
                let d = try number(v, k, kp(k))!
                f.tightenMax(d, draft == .draft4 && o["exclusiveMaximum"] == .bool(true))
            case "exclusiveMinimum":
                if case .bool = v { continue }
                f.tightenMin(try number(v, k, kp(k))!, true)
            case "exclusiveMaximum":
                if case .bool = v { continue }
                f.tightenMax(try number(v, k, kp(k))!, true)
            case "multipleOf":
                let d = try number(v, k, kp(k))!
                if d.isZero || d.negative { throw GrammarError(.syntax, keyword: k, pointer: kp(k), "multipleOf must be positive") }
                if ExactDecimal(negative: false, digits: [1], exponent: 0).isMultiple(of: d) == nil {
                    try unsupported(k, kp(k), "multipleOf has too many digits to check exactly")
                    continue
                }
                f.multipleOf.append(d)
            case "properties", "patternProperties", "additionalProperties":
                if o["properties"] != nil && k != "properties" { continue }
                if o["patternProperties"] != nil && k == "additionalProperties" { continue }
                var view = ObjectView(pointer: p)
                if case .object(let props) = o["properties"] ?? .object(JSONObject()) {
                    for (name, s) in props { view.properties.append((name, loc.child(s, "properties", name))) }
                }
                if case .object(let pats) = o["patternProperties"] ?? .object(JSONObject()) {
                    for (re, s) in pats { view.patterns.append((re, loc.child(s, "patternProperties", re))) }
                }
                if let a = o["additionalProperties"] { view.additional = loc.child(a, "additionalProperties") }
                f.objectViews.append(view)
            case "unevaluatedProperties", "unevaluatedItems":
                // `true` constrains nothing; an enclosing `unevaluated*` reads its presence itself.
                if v == .bool(true) { continue }
                f.unevaluated.append(UnevaluatedKeyword(owner: loc0, schema: loc.child(v, k), items: k == "unevaluatedItems"))
            case "required":
                for s in try strings(v, k, kp(k)) where !f.required.contains(s) { f.required.append(s) }
            case "minProperties": f.minProperties = max(f.minProperties, try count(v, k, kp(k))!)
            case "maxProperties":
                let m = try count(v, k, kp(k))!
                f.maxProperties = f.maxProperties < 0 ? m : min(f.maxProperties, m)
            case "propertyNames": f.propertyNames.append(loc.child(v, k))
            case "dependentRequired":
                guard case .object(let deps) = v else { continue }
                for (name, list) in deps { f.dependentRequired.append((name, try strings(list, k, kp(k)))) }
            case "dependencies", "dependentSchemas":
                guard case .object(let deps) = v else { continue }
                for (name, d) in deps {
                    if case .array = d, k == "dependencies" {
                        f.dependentRequired.append((name, try strings(d, k, kp(k))))
                        continue
                    }
                    // A dependent schema: "if `name` is present, the schema holds" =
                    // anyOf[not required name, schema ∧ required name].
                    let gk = loc.key + "/" + k + "/" + name
                    if resolved.contains(gk) { continue }
                    let absent = SchemaLoc(synthetic: .object(JSONObject([("$loom.notRequired", .array([.string(name)]))])), base: base, pointer: kp(k))
                    let present = SchemaLoc(synthetic: .object(JSONObject([("required", .array([.string(name)]))])), base: base, pointer: kp(k))
                    let nonObject = SchemaLoc(synthetic: .object(JSONObject([("type", .array(["null", "boolean", "array", "string", "number"]))])), base: base, pointer: kp(k))
                    f.groups.append(SchemaGroup(key: gk, keyword: k, pointer: kp(k) + "/" + name,
                                                alternatives: [[nonObject], [absent], [present, loc.child(d, k, name)]], exclusive: false,
                                                labels: ["n", "a", "p"], owner: loc.key))
                }
            case "items":
                var view = ArrayView()
                if case .array(let xs) = v {
                    if draft >= .draft2020_12 { throw GrammarError(.syntax, keyword: k, pointer: kp(k), "items must be a schema in 2020-12") }
                    view.prefix = xs.enumerated().map { loc.child($0.element, "items", String($0.offset)) }
                    if let ai = o["additionalItems"] { view.rest = loc.child(ai, "additionalItems") }
                } else {
                    if draft >= .draft2020_12, case .array(let xs) = o["prefixItems"] ?? .array([]) {
                        view.prefix = xs.enumerated().map { loc.child($0.element, "prefixItems", String($0.offset)) }
                    }
                    view.rest = loc.child(v, "items")
                }
                f.arrayViews.append(view)
            case "prefixItems":
                if o["items"] != nil || draft < .draft2020_12 { continue }
                guard case .array(let xs) = v else { continue }
                f.arrayViews.append(ArrayView(prefix: xs.enumerated().map { loc.child($0.element, "prefixItems", String($0.offset)) }, rest: nil))
            case "additionalItems": continue
            case "minItems": f.minItems = max(f.minItems, try count(v, k, kp(k))!)
            case "maxItems":
                let m = try count(v, k, kp(k))!
                f.maxItems = f.maxItems < 0 ? m : min(f.maxItems, m)
            case "uniqueItems": if v == .bool(true) { f.uniqueItems = kp(k) }
            case "contains":
                f.contains.append(loc.child(v, k))
                if draft >= .draft2019_09 {
                    if let m = try count(o["minContains"], "minContains", kp("minContains")) { f.minContains = max(f.minContains ?? 0, m) }
                    if let m = try count(o["maxContains"], "maxContains", kp("maxContains")) { f.maxContains = min(f.maxContains ?? Int.max, m) }
                }
            case "minContains", "maxContains": continue
            case "$loom.loc":
                if let i = v.intValue, i >= 0, i < locRegistry.count { queue.append(locRegistry[i]) }
            case "$loom.nonInteger": f.nonInteger = true
            case "$loom.notEnum":
                if case .array(let xs) = v { f.notValues.append(contentsOf: xs) }
            case "$loom.notRequired":
                f.notRequired.append(try strings(v, k, p))
            case "$loom.someMember":
                guard case .object(let w) = v, let value = w["value"] else { continue }
                f.memberWitnesses.append(MemberWitness(excludedNames: try strings(w["names"], k, p),
                                                       excludedPatterns: try strings(w["notPatterns"], k, p),
                                                       pattern: w["pattern"]?.stringValue,
                                                       value: loc.child(value, k, "value"), pointer: p))
            case "$loom.notPattern":
                if let s = v.stringValue { f.notPatterns.append((s, p)) }
            case "$loom.notFormat":
                if let s = v.stringValue { f.notFormats.append((s, p)) }
            case "$loom.min":
                if case .array(let xs) = v, xs.count == 2 { f.tightenMin(try number(xs[0], k, p)!, xs[1] == .bool(true)) }
            case "$loom.max":
                if case .array(let xs) = v, xs.count == 2 { f.tightenMax(try number(xs[0], k, p)!, xs[1] == .bool(true)) }
            default:
                continue  // unknown keywords are annotations
            }
        }
    }
}

extension JSONSchemaCompiler {
    /// The types a schema object's `type` keyword names (with OpenAPI's `nullable` adding `null`);
    /// nil when it has no `type`, or one that is neither a string nor an array.
    static func declaredTypes(_ o: JSONObject) -> Set<String>? {
        var t: Set<String>
        switch o["type"] {
        case .string(let s)?: t = [s]
        case .array(let xs)?: t = Set(xs.compactMap(\.stringValue))
        default: return nil
        }
        if o["nullable"] == .bool(true) { t.insert("null") }
        return t
    }
}
