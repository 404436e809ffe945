import LoomJSON

/// Building the grammar for a fully folded conjunction: one alternative per allowed JSON type.
extension JSONSchemaCompiler {
    mutating func buildTyped(_ f: SchemaFacts, pointer: String) throws(GrammarError) -> Int32 {
        var types = f.types ?? allJSONTypes
        if types.contains("number") { types.insert("integer") }
        if let values = f.enumValues {
            // Numbers are compared by value, so each is a number frame tracking its literal; one
            // shared frame (`numberSetNodes`) keeps a long numeric enum from running dozens in parallel.
            var alts: [Int32] = [], numbers: [ExactDecimal] = []
            for v in try finiteValues(f, values, pointer: pointer) {
                if case .number(let n) = v, let d = ExactDecimal(n.literal) { numbers.append(d) } else { alts.append(literalNode(v)) }
            }
            return b.alt(alts + numberSetNodes(numbers))
        }
        var alts: [Int32] = []
        if types.contains("null") && !f.notValues.contains(.null) { alts.append(b.literal("null")) }
        if types.contains("boolean") {
            if !f.notValues.contains(.bool(true)) { alts.append(b.literal("true")) }
            if !f.notValues.contains(.bool(false)) { alts.append(b.literal("false")) }
        }
        if types.contains("integer") || types.contains("number") {
            let spec = numberSpec(f, integerOnly: !types.contains("number"))
            // Contradictory bounds: no number alternative at all, so nothing (not even a first
            // digit) is admitted for it.
            if !spec.provablyEmpty { alts.append(b.add(.number(spec))) }
        }
        if types.contains("string") { alts.append(try stringNode(f)) }
        if types.contains("object") {
            if f.notValues.contains(where: { if case .object = $0 { return true }; return false }) {
                try unsupported("not", pointer, "excluding object values is not supported")
            }
            alts.append(try objectNode(f, pointer: pointer))
        }
        if types.contains("array") {
            if f.notValues.contains(where: { if case .array = $0 { return true }; return false }) {
                try unsupported("not", pointer, "excluding array values is not supported")
            }
            alts.append(try arrayNode(f, pointer: pointer))
        }
        return b.alt(alts)
    }

    /// `enum`/`const` values that also satisfy everything else in the conjunction.
    mutating func finiteValues(_ f: SchemaFacts, _ values: [JSONValue], pointer: String) throws(GrammarError) -> [JSONValue] {
        var types = f.types ?? allJSONTypes
        if types.contains("number") { types.insert("integer") }
        var out: [JSONValue] = []
        for v in values where !f.notValues.contains(v) && !out.contains(v) {
            switch v {
            case .null: if types.contains("null") { out.append(v) }
            case .bool: if types.contains("boolean") { out.append(v) }
            case .number(let n):
                guard let d = ExactDecimal(n.literal) else { continue }
                if !types.contains("number") && !(types.contains("integer") && d.isInteger) { continue }
                if numberSpec(f, integerOnly: false).admits(d) && !(f.nonInteger && d.isInteger) { out.append(v) }
            case .string(let s):
                guard types.contains("string") else { continue }
                if try stringAdmits(f, s) { out.append(v) }
            case .object, .array:
                let isObject: Bool = { if case .object = v { return true }; return false }()
                guard types.contains(isObject ? "object" : "array") else { continue }
                if f.constrainsContainers, try !factsAdmit(f, v, pointer: pointer) { continue }
                out.append(v)
            }
        }
        return out
    }

    // MARK: Literals

    /// Whether generation writes this value as plain digits: integral, and not so large that the
    /// digits would be absurd (1e300 stays as written).
    static func writesAsDigits(_ d: ExactDecimal) -> Bool { d.isInteger && d.digits.count + d.exponent <= 300 }

    /// Number frames admitting exactly `values` (compared by value): one for the members
    /// generation writes as plain digits, one for the rest. The set's extremes as bounds let the
    /// automaton prune prefixes that overshoot every member (`22` for 2 and 30).
    mutating func numberSetNodes(_ values: [ExactDecimal]) -> [Int32] {
        let canonical = options.canonicalForms
        let plainDigits = { (d: ExactDecimal) in canonical && Self.writesAsDigits(d) }
        var nodes: [Int32] = []
        for group in [values.filter(plainDigits), values.filter { !plainDigits($0) }] where !group.isEmpty {
            var s = NumberSpec()
            s.allowed = group
            s.minimum = group.min { ExactDecimal.compare($0, $1) < 0 }
            s.maximum = group.max { ExactDecimal.compare($0, $1) < 0 }
            if plainDigits(group[0]) { s.integer = .digitsOnly }
            nodes.append(b.add(.number(s)))
        }
        return nodes
    }

    /// A node for exactly this JSON value (numbers compared by value, so `1` also matches `1.0`).
    mutating func literalNode(_ v: JSONValue) -> Int32 {
        switch v {
        case .null: return b.literal("null")
        case .bool(let x): return b.literal(x ? "true" : "false")
        case .number(let n):
            guard let d = ExactDecimal(n.literal) else { return b.add(.fail) }
            return numberSetNodes([d])[0]
        case .string(let s):
            var out = ""
            JSONValue.writeString(s, into: &out)
            return b.literal(out)
        case .array(let xs):
            var items: [Int32] = [b.literal("["), ws]
            for (i, x) in xs.enumerated() {
                if i > 0 { items += [b.literal(","), ws] }
                items += [literalNode(x), ws]
            }
            items.append(b.literal("]"))
            return b.add(.seq(items))
        case .object(let o):
            // Members in any order (JSON object equality ignores order), all required, no others.
            var spec = ObjectSpec()
            for (k, x) in o.members {
                var key = ""
                JSONValue.writeString(k, into: &key)
                spec.members.append(b.add(.seq([b.literal(key), ws, b.literal(":"), ws, literalNode(x)])))
            }
            spec.required = Array(0..<spec.members.count)
            spec.schemaOrder = options.schemaOrder
            spec.whitespace = options.whitespace
            return b.add(.object(spec))
        }
    }

    // MARK: Numbers

    func numberSpec(_ f: SchemaFacts, integerOnly: Bool) -> NumberSpec {
        var s = NumberSpec()
        // From draft-06 `2.0` is an integer; generation still writes plain digits.
        if integerOnly { s.integer = draft == .draft4 || options.canonicalForms ? .digitsOnly : .integralValue }
        if f.nonInteger { s.integer = integerOnly ? .digitsOnly : .nonIntegral }
        if let (m, e) = f.minimum { s.minimum = m; s.minimumExclusive = e }
        if let (m, e) = f.maximum { s.maximum = m; s.maximumExclusive = e }
        s.multipleOf = f.multipleOf
        for v in f.notValues { if case .number(let n) = v, let d = ExactDecimal(n.literal) { s.excluded.append(d) } }
        return s
    }

    // MARK: Strings

    /// The DFAs a string's decoded bytes must satisfy (patterns, formats and their complements).
    mutating func stringDFAs(_ f: SchemaFacts) throws(GrammarError) -> (dfas: [ByteDFA], maxLength: Int) {
        var dfas: [ByteDFA] = []
        var maxLength = f.maxLength
        for (p, ptr) in f.patterns { dfas.append(try regex(p, .search, keyword: "pattern", pointer: ptr)) }
        for (p, ptr) in f.notPatterns { dfas.append(try regex(p, .search, keyword: "not", pointer: ptr).complement) }
        for (fmt, ptr) in f.formats {
            if JSONSchemaFormats.unsupported.contains(fmt) {
                try unsupported("format", ptr, "format '\(fmt)' cannot be enforced exactly")
                continue
            }
            guard let re = JSONSchemaFormats.regex(fmt) else { continue }
            if JSONSchemaFormats.canonicalSubsetOnly.contains(fmt) && !options.canonicalForms {
                // Only the canonical subset is enforceable: refuse in strict recognition; lenient
                // keeps the subset (valid values may be refused, invalid ones never accepted).
                let why = "format '\(fmt)' with IDNA A-labels (xn--) needs Punycode and IDNA table checks"
                if options.lenient {
                    b.warnings.append("\(ptr) (format): \(why) — host names with A-labels are refused")
                } else {
                    try unsupported("format", ptr, why)
                }
            }
            dfas.append(try regex(re, .fullMatch, keyword: "format", pointer: ptr))
            for extra in JSONSchemaFormats.constraints(fmt) {
                dfas.append(try regex(extra, .fullMatch, keyword: "format", pointer: ptr))
            }
            for bad in JSONSchemaFormats.forbidden(fmt) {
                dfas.append(try regex(bad, .search, keyword: "format", pointer: ptr).complement)
            }
            if let m = JSONSchemaFormats.maxLength(fmt) { maxLength = maxLength < 0 ? m : min(maxLength, m) }
        }
        for (fmt, ptr) in f.notFormats {
            guard let re = JSONSchemaFormats.regex(fmt) else { continue }
            var d = try regex(re, .fullMatch, keyword: "not", pointer: ptr)
            if JSONSchemaFormats.maxLength(fmt) != nil || !JSONSchemaFormats.forbidden(fmt).isEmpty
                || !JSONSchemaFormats.constraints(fmt).isEmpty {
                // The complement of (syntax ∧ extra checks) is not one DFA here: refuse rather than guess.
                try unsupported("not", ptr, "the complement of format '\(fmt)' is not supported")
            }
            d = d.complement
            dfas.append(d)
        }
        let excluded = f.notValues.compactMap(\.stringValue)
        if !excluded.isEmpty { dfas.append(excluding(excluded)) }
        return (dfas, maxLength)
    }

    mutating func stringNode(_ f: SchemaFacts) throws(GrammarError) -> Int32 {
        let (dfas, maxLength) = try stringDFAs(f)
        if maxLength >= 0 && f.minLength > maxLength { return b.add(.fail) }
        if dfas.contains(where: \.isEmpty) { return b.add(.fail) }
        var s = StringSpec()
        s.minLength = f.minLength
        s.maxLength = maxLength
        s.dfas = dfas.map { b.addDFA($0) }
        return b.add(.string(s))
    }

    /// Whether a known string satisfies the string keywords.
    mutating func stringAdmits(_ f: SchemaFacts, _ s: String) throws(GrammarError) -> Bool {
        let (dfas, maxLength) = try stringDFAs(f)
        let n = s.unicodeScalars.count
        if n < f.minLength || (maxLength >= 0 && n > maxLength) { return false }
        let bytes = Array(s.utf8)
        return dfas.allSatisfy { $0.matches(bytes) }
    }
}
