#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Jinja2's built-in filters, plus `tojson` as Hugging Face defines it (`json.dumps` with
/// `ensure_ascii=False` by default, no HTML escaping).
extension TemplateInterpreter {
    /// A filter bound to the interpreter that runs it: `value | name(arguments)`.
    typealias Filter = (_ value: Value, _ arguments: EvaluatedArguments) throws(TemplateError) -> Value

    /// Every filter Loom implements, by the names templates use (aliases share an entry's
    /// method). The compile-time check, the `filter` test and `applyFilter` all read this table,
    /// so a name is accepted exactly when it runs.
    static let filters: [String: @Sendable (TemplateInterpreter) -> Filter] = [
        "abs": TemplateInterpreter.absFilter,
        "attr": TemplateInterpreter.attrFilter,
        "batch": TemplateInterpreter.batchFilter,
        "capitalize": TemplateInterpreter.capitalizeFilter,
        "center": TemplateInterpreter.centerFilter,
        "count": TemplateInterpreter.lengthFilter,
        "d": TemplateInterpreter.defaultFilter,
        "default": TemplateInterpreter.defaultFilter,
        "dictsort": TemplateInterpreter.dictsortFilter,
        "e": TemplateInterpreter.escapeFilter,
        "escape": TemplateInterpreter.escapeFilter,
        "first": TemplateInterpreter.firstFilter,
        "float": TemplateInterpreter.floatFilter,
        "forceescape": TemplateInterpreter.forceescapeFilter,
        "format": TemplateInterpreter.formatFilter,
        "indent": TemplateInterpreter.indentFilter,
        "int": TemplateInterpreter.intFilter,
        "items": TemplateInterpreter.itemsFilter,
        "join": TemplateInterpreter.joinFilter,
        "last": TemplateInterpreter.lastFilter,
        "length": TemplateInterpreter.lengthFilter,
        "list": TemplateInterpreter.listFilter,
        "lower": TemplateInterpreter.lowerFilter,
        "map": TemplateInterpreter.mapFilter,
        "max": TemplateInterpreter.maxFilter,
        "min": TemplateInterpreter.minFilter,
        "reject": TemplateInterpreter.rejectFilter,
        "rejectattr": TemplateInterpreter.rejectattrFilter,
        "replace": TemplateInterpreter.replaceFilter,
        "reverse": TemplateInterpreter.reverseFilter,
        "round": TemplateInterpreter.roundFilter,
        "safe": TemplateInterpreter.safeFilter,
        "select": TemplateInterpreter.selectFilter,
        "selectattr": TemplateInterpreter.selectattrFilter,
        "slice": TemplateInterpreter.sliceFilter,
        "sort": TemplateInterpreter.sortFilter,
        "string": TemplateInterpreter.stringFilter,
        "striptags": TemplateInterpreter.striptagsFilter,
        "sum": TemplateInterpreter.sumFilter,
        "title": TemplateInterpreter.titleFilter,
        "tojson": TemplateInterpreter.tojsonFilter,
        "trim": TemplateInterpreter.trimFilter,
        "truncate": TemplateInterpreter.truncateFilter,
        "unique": TemplateInterpreter.uniqueFilter,
        "upper": TemplateInterpreter.upperFilter,
        "wordcount": TemplateInterpreter.wordcountFilter,
    ]

    /// Filters Jinja2 defines that Loom does not implement: templates may name them (the
    /// compile-time check accepts them), and using one fails at run time with a clear message.
    static let unsupportedFilters: Set<String> = [
        "filesizeformat", "groupby", "pprint", "random", "urlencode", "urlize", "wordwrap", "xmlattr",
    ]

    func applyFilter(_ name: String, _ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        guard let filter = TemplateInterpreter.filters[name] else {
            if TemplateInterpreter.unsupportedFilters.contains(name) {
                throw TemplateError.runtime("the '\(name)' filter is not supported by Loom's template engine")
            }
            throw TemplateError.runtime("No filter named '\(name)' found.")
        }
        return try filter(self)(value, args)
    }

    // MARK: - Values and strings

    private func defaultFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        let fallback = args.value(0, "default_value") ?? .string("")
        let boolean = args.value(1, "boolean")?.truthy ?? false
        if value.isUndefined || (boolean && !value.truthy) { return fallback }
        return value
    }

    private func lengthFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        .int(try length(value))
    }

    private func stringFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        if case .markup = value { return value }
        return .string(PythonFormat.str(value))
    }

    private func safeFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        if case .markup = value { return value }
        return .markup(PythonFormat.str(value))
    }

    private func escapeFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        if case .markup = value { return value }
        return forceescapeFilter(value, args)
    }

    private func forceescapeFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        .markup(PythonFormat.htmlEscape(PythonFormat.str(value)))
    }

    private func trimFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try args.check("trim", names: ["chars"])
        let chars = args.value(0, "chars").flatMap { $0.isNone ? nil : PythonFormat.str($0) }
        return keepMarkup(value, PythonString.strip(PythonFormat.str(value), chars: chars, left: true, right: true))
    }

    private func upperFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        keepMarkup(value, PythonString.upper(PythonFormat.str(value)))
    }

    private func lowerFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        keepMarkup(value, PythonString.lower(PythonFormat.str(value)))
    }

    private func capitalizeFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        keepMarkup(value, PythonString.capitalize(PythonFormat.str(value)))
    }

    private func titleFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        keepMarkup(value, jinjaTitle(PythonFormat.str(value)))
    }

    private func replaceFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try args.check("replace", names: ["old", "new", "count"])
        guard let old = args.value(0, "old"), let new = args.value(1, "new") else {
            throw TemplateError.type("do_replace() missing required arguments: 'old' and 'new'")
        }
        var count = -1
        if let c = args.value(2, "count"), !c.isNone {
            guard case .int(let n)? = c.numeric else { throw TemplateError.type("'\(c.typeName)' object cannot be interpreted as an integer") }
            count = n
        }
        if case .markup(let s) = value {
            return .markup(PythonString.replace(s, PythonFormat.htmlEscape(PythonFormat.str(old)), PythonFormat.htmlEscape(PythonFormat.str(new)), count: count))
        }
        return .string(PythonString.replace(PythonFormat.str(value), PythonFormat.str(old), PythonFormat.str(new), count: count))
    }

    private func tojsonFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        .string(try toJSON(value, args))
    }

    private func indentFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        // Jinja2 appends "\n" to the value, so only strings are accepted.
        switch value {
        case .string(let s): return .string(try indented(s, args))
        case .markup(let s): return .markup(try indented(s, args))
        case .undefined(let u): throw u.error
        case .list: throw TemplateError(.attribute, "'list' object has no attribute 'splitlines'")
        case .tuple: throw TemplateError.type("can only concatenate tuple (not \"str\") to tuple")
        default: throw TemplateError.type("unsupported operand type(s) for +=: '\(value.typeName)' and 'str'")
        }
    }

    private func centerFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        let width = args.value(0, "width").flatMap { if case .int(let i)? = $0.numeric { return i }; return nil } ?? 80
        return .string(PythonString.center(PythonFormat.str(value), width: try checkedSize(width, "width")))
    }

    private func wordcountFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        var count = 0
        var inWord = false
        for c in PythonFormat.str(value).unicodeScalars {
            let word = c == "_" || PythonString.isAlpha(c) || c.properties.numericType != nil
            if word && !inWord { count += 1 }
            inWord = word
        }
        return .int(count)
    }

    private func truncateFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        // Jinja2 does not convert: it measures and slices the value itself.
        switch value {
        case .string(let s), .markup(let s): return keepMarkup(value, try truncated(s, args))
        case .undefined: return value
        case .list, .tuple, .dict, .range, .view:
            var length = 255, leeway = 5
            if case .int(let n)? = args.value(0, "length")?.numeric { length = n }
            if case .int(let n)? = args.value(3, "leeway")?.numeric { leeway = n }
            if try self.length(value) <= length + leeway { return value }
            if args.value(1, "killwords")?.truthy ?? false {
                throw TemplateError.type("can only concatenate \(value.typeName) (not \"str\") to \(value.typeName)")
            }
            throw TemplateError(.attribute, "'\(value.typeName)' object has no attribute 'rsplit'")
        default:
            throw TemplateError.type("object of type '\(value.typeName)' has no len()")
        }
    }

    private func striptagsFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        .string(stripTags(PythonFormat.str(value)))
    }

    private func formatFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        if !args.positional.isEmpty && !args.keyword.isEmpty {
            throw TemplateError.runtime("can't handle positional and keyword arguments at the same time")
        }
        var mapping = PyDict()
        for (k, v) in args.keyword { mapping[k] = v }
        let operand: Value = args.keyword.isEmpty ? .tuple(args.positional) : .dict(mapping)
        return .string(try PythonFormatSpec.percentFormat(PythonFormat.str(value), operand))
    }

    private func attrFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        guard let n = args.value(0, "name")?.stringValue else { throw TemplateError.type("attr() needs a name") }
        return try attribute(of: value, n)
    }

    // MARK: - Numbers

    private func intFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        if case .undefined(let u) = value { throw u.error }
        return convertInt(value, fallback: args.value(0, "default") ?? .int(0), base: args.value(1, "base"))
    }

    private func floatFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        if case .undefined(let u) = value { throw u.error }
        return convertFloat(value, fallback: args.value(0, "default") ?? .double(0))
    }

    private func absFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        switch value {
        case .int(let i):
            guard i != Int.min else { throw TemplateError(.arithmetic, "integer overflow") }
            return .int(abs(i))
        case .bool(let b): return .int(b ? 1 : 0)
        case .double(let d): return .double(abs(d))
        default: throw TemplateError.type("bad operand type for abs(): '\(value.typeName)'")
        }
    }

    private func roundFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try args.check("round", names: ["precision", "method"])
        guard let number = value.numeric else {
            throw TemplateError.type("type \(value.typeName) doesn't define __round__ method")
        }
        var precision = 0
        if let p = args.value(0, "precision") { guard case .int(let n)? = p.numeric else { throw TemplateError.type("precision must be an integer") }; precision = n }
        let method = args.value(1, "method")?.stringValue ?? "common"
        let scale = pow(10.0, Double(precision))
        let x = number.asDouble
        switch method {
        case "common":
            // Python's round() of an int (or bool) stays an int.
            if case .int(let i) = number, precision >= 0 { return .int(i) }
            return .double((x * scale).rounded(.toNearestOrEven) / scale)
        case "ceil": return .double((x * scale).rounded(.up) / scale)
        case "floor": return .double((x * scale).rounded(.down) / scale)
        default: throw TemplateError.type("method must be common, ceil or floor")
        }
    }

    private func sumFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try args.check("sum", names: ["attribute", "start"])
        var total = args.value(1, "start") ?? .int(0)
        let attribute = args.value(0, "attribute")
        for item in try iterate(value) {
            var v = item
            if let attribute, !attribute.isNone { v = try attributePath(item, attribute) }
            total = try binary(.add, total, v)
        }
        return total
    }

    private func minFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try extremum(value, args, name: "min")
    }

    private func maxFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try extremum(value, args, name: "max")
    }

    /// `min` or `max`: the first item whose key is smallest (largest).
    private func extremum(_ value: Value, _ args: EvaluatedArguments, name: String) throws(TemplateError) -> Value {
        try args.check(name, names: ["case_sensitive", "attribute"])
        let items = try iterate(value)
        guard !items.isEmpty else { return .undefined(UndefinedInfo(hint: "No aggregated item, sequence was empty.")) }
        let caseSensitive = args.value(0, "case_sensitive")?.truthy ?? false
        let attribute = args.value(1, "attribute")
        func key(_ v: Value) throws(TemplateError) -> Value {
            var k = v
            if let attribute, !attribute.isNone { k = try attributePath(v, attribute) }
            return caseSensitive ? k : TemplateInterpreter.foldCase(k)
        }
        var best = items[0]
        var bestKey = try key(best)
        for item in items.dropFirst() {
            let k = try key(item)
            let c = try Value.pyCompare(k, bestKey, "<")
            if name == "min" ? c < 0 : c > 0 { best = item; bestKey = k }
        }
        return best
    }

    // MARK: - Sequences

    private func joinFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try args.check("join", names: ["d", "attribute"])
        let separator = args.value(0, "d").map(PythonFormat.str) ?? ""
        var items = try iterate(value)
        if let attribute = args.value(1, "attribute"), !attribute.isNone {
            items = try items.map { (v: Value) throws(TemplateError) in try attributePath(v, attribute) }
        }
        var out = ""
        for (i, item) in items.enumerated() {
            if i > 0 { out += separator }
            out += PythonFormat.str(item)
        }
        return .string(out)
    }

    private func listFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        .list(try iterate(value))
    }

    private func firstFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        if case .generator(let g) = value {
            return try g.drain().first ?? .undefined(UndefinedInfo(hint: "No first item, sequence was empty."))
        }
        return try iterate(value).first ?? .undefined(UndefinedInfo(hint: "No first item, sequence was empty."))
    }

    private func lastFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        if case .generator = value { throw TemplateError.type("'generator' object is not reversible") }
        return try iterate(value).last ?? .undefined(UndefinedInfo(hint: "No last item, sequence was empty."))
    }

    private func itemsFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        if value.isUndefined { return .generator(Generator([])) }
        guard case .dict(let d) = value else {
            return .generator(Generator(failure: TemplateError.type("Can only get item pairs from a mapping.")))
        }
        return .generator(Generator(d.items.map { .tuple([$0.0, $0.1]) }))
    }

    private func sortFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try args.check("sort", names: ["reverse", "case_sensitive", "attribute"])
        let items = try iterate(value)
        let attribute = args.value(2, "attribute")
        let caseSensitive = args.value(1, "case_sensitive")?.truthy ?? false
        let sorted = try stableSort(items, reverse: args.value(0, "reverse")?.truthy ?? false, equalFirst: true) { (v: Value) throws(TemplateError) in
            var key = v
            if let attribute, !attribute.isNone { key = try self.attributePath(v, attribute) }
            return caseSensitive ? key : TemplateInterpreter.foldCase(key)
        }
        return .list(sorted)
    }

    private func uniqueFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try args.check("unique", names: ["case_sensitive", "attribute"])
        let caseSensitive = args.value(0, "case_sensitive")?.truthy ?? false
        let attribute = args.value(1, "attribute")
        var seen: [Value] = []
        var out: [Value] = []
        do throws(TemplateError) {
            for item in try iterate(value) {
                var key = item
                if let attribute, !attribute.isNone { key = try attributePath(item, attribute) }
                if !caseSensitive { key = TemplateInterpreter.foldCase(key) }
                if !seen.contains(where: { Value.pyEqual($0, key) }) {
                    seen.append(key)
                    out.append(item)
                }
            }
        } catch {
            return .generator(Generator(failure: error))
        }
        return .generator(Generator(out))
    }

    private func reverseFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        if let s = value.stringValue { return .string(PythonString.string(s.unicodeScalars.reversed())) }
        if case .generator(let g) = value { return .list(try g.drain().reversed()) }
        if case .undefined = value { return .generator(Generator([])) }
        let items: [Value]
        do throws(TemplateError) { items = try iterate(value) } catch {
            throw TemplateError(.filterArgument, "argument must be iterable")
        }
        return .generator(Generator(items.reversed()))
    }

    private func batchFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        let (n, fill, items) = try chunking(value, args, name: "batch", countName: "linecount")
        var out: [Value] = []
        var i = 0
        while i < items.count {
            var chunk = Array(items[i..<min(i + n, items.count)])
            if let fill, !fill.isNone, chunk.count < n { chunk += Array(repeating: fill, count: n - chunk.count) }
            out.append(.list(chunk))
            i += n
        }
        return .generator(Generator(out))
    }

    private func sliceFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        let (n, fill, items) = try chunking(value, args, name: "slice", countName: "slices")
        var out: [Value] = []
        let per = items.count / n, extra = items.count % n
        var offset = 0
        for k in 0..<n {
            let size = per + (k < extra ? 1 : 0)
            var chunk = Array(items[offset..<(offset + size)])
            offset += size
            if let fill, !fill.isNone, k >= extra, extra > 0 { chunk.append(fill) }
            out.append(.list(chunk))
        }
        return .generator(Generator(out))
    }

    /// The arguments `batch` and `slice` share: a positive count (bounded like any size), the
    /// optional `fill_with`, and the items.
    private func chunking(_ value: Value, _ args: EvaluatedArguments, name: String,
                          countName: String) throws(TemplateError) -> (Int, Value?, [Value]) {
        guard case .int(let n)? = args.value(0, countName)?.numeric, n > 0 else {
            throw TemplateError.value("\(name) needs a positive count")
        }
        _ = try checkedSize(n, "\(name) count")
        return (n, args.value(1, "fill_with"), try iterate(value))
    }

    private func selectFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        selection(value, args, byAttribute: false, keep: true)
    }

    private func rejectFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        selection(value, args, byAttribute: false, keep: false)
    }

    private func selectattrFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        selection(value, args, byAttribute: true, keep: true)
    }

    private func rejectattrFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        selection(value, args, byAttribute: true, keep: false)
    }

    private func dictsortFilter(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        try args.check("dictsort", names: ["case_sensitive", "by", "reverse"])
        guard case .dict(let d) = value else {
            if case .undefined(let u) = value { throw u.error }
            throw TemplateError(.attribute, "'\(value.typeName)' object has no attribute 'items'")
        }
        let caseSensitive = args.value(0, "case_sensitive")?.truthy ?? false
        let by = args.value(1, "by")?.stringValue ?? "key"
        guard by == "key" || by == "value" else { throw TemplateError.runtime("You can only sort by either 'key' or 'value'") }
        let pairs: [Value] = d.items.map { .tuple([$0.0, $0.1]) }
        let sorted = try stableSort(pairs, reverse: args.value(2, "reverse")?.truthy ?? false) { (pair: Value) throws(TemplateError) in
            guard case .tuple(let kv) = pair else { return pair }
            let k = by == "key" ? kv[0] : kv[1]
            return caseSensitive ? k : TemplateInterpreter.foldCase(k)
        }
        return .list(sorted)
    }

    private func mapFilter(_ value: Value, _ args: EvaluatedArguments) -> Value {
        do throws(TemplateError) {
            // Jinja2 checks truthiness first: `none | map(...)` is empty, not an error.
            if !value.truthy { return .generator(Generator([])) }
            let items = try iterate(value)
            if let attribute = args.keyword.first(where: { $0.0 == "attribute" })?.1 {
                let fallback = args.keyword.first(where: { $0.0 == "default" })?.1
                var out: [Value] = []
                for item in items {
                    var v = try attributePath(item, attribute)
                    if v.isUndefined, let fallback { v = fallback }
                    out.append(v)
                }
                return .generator(Generator(out))
            }
            guard let filterName = args.positional.first?.stringValue else {
                throw TemplateError.runtime("map requires a filter argument")
            }
            let rest = EvaluatedArguments(positional: Array(args.positional.dropFirst()), keyword: args.keyword)
            var out: [Value] = []
            for item in items { out.append(try applyFilter(filterName, item, rest)) }
            return .generator(Generator(out))
        } catch {
            return .generator(Generator(failure: error))
        }
    }

    private func selection(_ value: Value, _ args: EvaluatedArguments, byAttribute: Bool, keep: Bool) -> Value {
        do throws(TemplateError) {
            if !value.truthy { return .generator(Generator([])) }
            var positional = args.positional
            var attribute: Value?
            if byAttribute {
                guard !positional.isEmpty else { throw TemplateError.runtime("Missing parameter for attribute name") }
                attribute = positional.removeFirst()
            }
            let testName = positional.isEmpty ? nil : positional.removeFirst().stringValue
            let testArgs = EvaluatedArguments(positional: positional, keyword: args.keyword)
            var out: [Value] = []
            for item in try iterate(value) {
                let subject = try attribute.map { (a: Value) throws(TemplateError) in try attributePath(item, a) } ?? item
                let passed = try testName.map { (t: String) throws(TemplateError) in try applyTest(t, subject, testArgs) } ?? subject.truthy
                if passed == keep { out.append(item) }
            }
            return .generator(Generator(out))
        } catch {
            return .generator(Generator(failure: error))
        }
    }

    // MARK: - Shared helpers

    private func keepMarkup(_ original: Value, _ result: String) -> Value {
        if case .markup = original { return .markup(result) }
        return .string(result)
    }

    /// Python's `len(x)`.
    private func length(_ value: Value) throws(TemplateError) -> Int {
        switch value {
        case .string(let s), .markup(let s): return PythonString.length(s)
        case .list(let a), .tuple(let a): return a.count
        case .dict(let d): return d.count
        case .range(let r): return r.count
        case .view(let v): return v.items.count
        case .undefined: return 0
        default: throw TemplateError.type("object of type '\(value.typeName)' has no len()")
        }
    }

    private static func foldCase(_ v: Value) -> Value {
        if let s = v.stringValue { return .string(PythonString.lower(s)) }
        return v
    }

    /// Jinja2's attribute getter for filters: a dotted path of item lookups (`a.b`, `items.0`).
    private func attributePath(_ value: Value, _ attribute: Value) throws(TemplateError) -> Value {
        if case .int = attribute { return try item(of: value, attribute) }
        let path = PythonFormat.str(attribute)
        var current = value
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            if let i = Int(part) {
                current = try item(of: current, .int(i))
            } else {
                current = try item(of: current, .string(String(part)))
            }
        }
        return current
    }

    /// Python's `sorted(items, key=key, reverse=reverse)`: stable, `TypeError` on unorderable keys.
    /// `equalFirst` mirrors the `sort` filter, whose keys are one-element lists: Python compares
    /// those by equality first, so equal (even undefined) keys never reach `<`.
    private func stableSort(_ items: [Value], reverse: Bool, equalFirst: Bool = false,
                    key: (Value) throws(TemplateError) -> Value) throws(TemplateError) -> [Value] {
        var keyed: [(Value, Int)] = []
        for (i, item) in items.enumerated() { keyed.append((try key(item), i)) }
        var failure: TemplateError?
        keyed.sort { a, b in
            if failure != nil { return a.1 < b.1 }
            do throws(TemplateError) {
                if equalFirst && Value.pyEqual(a.0, b.0) { return a.1 < b.1 }
                let c = try Value.pyCompare(a.0, b.0, "<")
                if c != 0 { return reverse ? c > 0 : c < 0 }
            } catch {
                failure = error
            }
            return a.1 < b.1
        }
        if let failure { throw failure }
        return keyed.map { items[$0.1] }
    }

    /// Hugging Face's `tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
    private func toJSON(_ value: Value, _ args: EvaluatedArguments) throws(TemplateError) -> String {
        try args.check("tojson", names: ["ensure_ascii", "indent", "separators", "sort_keys"])
        let ascii = args.value(0, "ensure_ascii")?.truthy ?? false
        var indent: String?
        if let i = args.value(1, "indent") {
            switch i {
            case .none: indent = nil
            case .int(let n): indent = String(repeating: " ", count: max(0, try checkedSize(n, "indent")))
            case .string(let s), .markup(let s): indent = s
            default: throw TemplateError.type("indent must be an int or a string")
            }
        }
        var separators: (String, String)?
        if let s = args.value(2, "separators"), !s.isNone {
            switch s {
            case .list(let p), .tuple(let p):
                guard p.count == 2, let a = p[0].stringValue, let b = p[1].stringValue else {
                    throw TemplateError.value("separators must be a pair of strings")
                }
                separators = (a, b)
            default: throw TemplateError.value("separators must be a pair of strings")
            }
        }
        let sortKeys = args.value(3, "sort_keys")?.truthy ?? false
        return try PythonFormat.json(value, PythonJSONOptions(ensureASCII: ascii, indent: indent, separators: separators, sortKeys: sortKeys))
    }

    private func indented(_ s: String, _ args: EvaluatedArguments) throws(TemplateError) -> String {
        try args.check("indent", names: ["width", "first", "blank"])
        var indentation = "    "
        if let w = args.value(0, "width") {
            if let text = w.stringValue { indentation = text }
            else if case .int(let n)? = w.numeric { indentation = String(repeating: " ", count: max(0, try checkedSize(n, "indent width"))) }
        }
        let first = args.value(1, "first")?.truthy ?? false
        let blank = args.value(2, "blank")?.truthy ?? false
        let lines = PythonString.splitLines(s + "\n")
        var out: String
        if blank {
            out = lines.joined(separator: "\n" + indentation)
        } else {
            out = lines.first ?? ""
            if lines.count > 1 {
                out += "\n" + lines.dropFirst().map { $0.isEmpty ? $0 : indentation + $0 }.joined(separator: "\n")
            }
        }
        if first { out = indentation + out }
        return out
    }

    private func truncated(_ s: String, _ args: EvaluatedArguments) throws(TemplateError) -> String {
        try args.check("truncate", names: ["length", "killwords", "end", "leeway"])
        var length = 255
        if case .int(let n)? = args.value(0, "length")?.numeric { length = n }
        let killwords = args.value(1, "killwords")?.truthy ?? false
        let end = args.value(2, "end").map(PythonFormat.str) ?? "..."
        var leeway = 5
        if case .int(let n)? = args.value(3, "leeway")?.numeric { leeway = n }
        let endLength = PythonString.length(end)
        guard length >= endLength else { throw TemplateError.runtime("expected length >= \(endLength), got \(length)") }
        let scalars = Array(s.unicodeScalars)
        if scalars.count <= length + leeway { return s }
        let head = PythonString.string(scalars[..<(length - endLength)])
        if killwords { return head + end }
        let parts = try PythonString.rsplit(head, separator: " ", maxSplit: 1)
        return (parts.first ?? "") + end
    }

    /// markupsafe's `striptags`: drop comments and tags, collapse whitespace, unescape entities.
    private func stripTags(_ s: String) -> String {
        let c = Array(s.unicodeScalars)
        var text = String.UnicodeScalarView()
        var i = 0
        func startsWith(_ pattern: String, at k: Int) -> Bool {
            var j = k
            for p in pattern.unicodeScalars {
                guard j < c.count, c[j] == p else { return false }
                j += 1
            }
            return true
        }
        while i < c.count {
            if c[i] == "<" {
                if startsWith("<!--", at: i) {
                    var j = i + 4
                    while j < c.count && !startsWith("-->", at: j) { j += 1 }
                    if j < c.count { i = j + 3; continue }
                } else if let close = c[(i + 1)...].firstIndex(of: ">") {
                    i = close + 1
                    continue
                }
            }
            text.append(c[i])
            i += 1
        }
        let collapsed = ((try? PythonString.split(String(text), separator: nil)) ?? []).joined(separator: " ")
        var out = collapsed
        for (entity, replacement) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&#34;", "\""), ("&amp;", "&")] {
            out = PythonString.replace(out, entity, replacement)
        }
        return out
    }

    /// Jinja2's `title` filter: each word (split at whitespace, `-`, and opening brackets)
    /// gets its first character upper-cased and the rest lower-cased.
    private func jinjaTitle(_ s: String) -> String {
        var out = ""
        var atWordStart = true
        for c in s.unicodeScalars {
            let separator = PythonString.isSpace(c) || c == "-" || c == "(" || c == "{" || c == "[" || c == "<"
            if separator {
                out.unicodeScalars.append(c)
                atWordStart = true
            } else if atWordStart {
                out += c.properties.uppercaseMapping
                atWordStart = false
            } else {
                out += c.properties.lowercaseMapping
            }
        }
        return out
    }

    private func convertInt(_ value: Value, fallback: Value, base: Value?) -> Value {
        switch value {
        case .int: return value
        case .bool(let b): return .int(b ? 1 : 0)
        case .double(let d):
            guard d.isFinite, abs(d) < 9.2e18 else { return fallback }
            return .int(Int(d))
        case .string(let s), .markup(let s):
            var radix = 10
            if case .int(let b)? = base?.numeric { radix = b }
            let trimmed = PythonString.removingDigitSeparators(PythonString.strip(s, chars: nil, left: true, right: true))
            if let i = Int(trimmed, radix: radix) { return .int(i) }
            if let d = Double(trimmed), d.isFinite, abs(d) < 9.2e18 { return .int(Int(d)) }
            return fallback
        default:
            return fallback
        }
    }

    private func convertFloat(_ value: Value, fallback: Value) -> Value {
        switch value {
        case .int(let i): return .double(Double(i))
        case .bool(let b): return .double(b ? 1 : 0)
        case .double: return value
        case .string(let s), .markup(let s):
            let t = PythonString.strip(s, chars: nil, left: true, right: true).lowercased()
            switch t {
            case "inf", "+inf", "infinity", "+infinity": return .double(.infinity)
            case "-inf", "-infinity": return .double(-.infinity)
            case "nan", "+nan", "-nan": return .double(.nan)
            default: return Double(t).map { .double($0) } ?? fallback
            }
        default:
            return fallback
        }
    }
}
