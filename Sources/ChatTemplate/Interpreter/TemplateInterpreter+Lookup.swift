/// Attribute, item and slice lookup, and iteration, as Jinja2's sandboxed environment does them.
///
/// `x.name` tries the Python attribute (a method, for built-in types) and then the item;
/// `x[key]` tries the item and then, for string keys, the attribute. A failed lookup yields an
/// undefined value that remembers what was missing, so the error (if it is ever used) reads as
/// Python's would. Mutating methods of lists and dicts are refused (immutable sandbox) and
/// names starting with `_` are never exposed.
extension TemplateInterpreter {
    static let stringMethods: Set<String> = [
        "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find", "format",
        "format_map", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier",
        "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower",
        "lstrip", "maketrans", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex",
        "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase",
        "title", "translate", "upper", "zfill",
    ]
    static let dictMethods: Set<String> = ["clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"]
    static let dictMutators: Set<String> = ["clear", "pop", "popitem", "setdefault", "update"]
    static let listMethods: Set<String> = ["append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse", "sort"]
    static let listMutators: Set<String> = ["append", "clear", "extend", "insert", "pop", "remove", "reverse", "sort"]
    static let tupleMethods: Set<String> = ["count", "index"]

    /// Python's `object_type_repr` for error messages.
    static func ownerDescription(_ v: Value) -> String {
        if case .none = v { return "None" }
        return "\(v.typeName) object"
    }

    private func unsafe(_ v: Value, _ name: String) -> Value {
        .undefined(UndefinedInfo(name: name, hint: "access to attribute '\(name)' of '\(v.typeName)' object is unsafe.", security: true))
    }

    private func noAttribute(_ v: Value, _ name: String) -> Value {
        .undefined(UndefinedInfo(name: name, owner: TemplateInterpreter.ownerDescription(v)))
    }

    /// The method `name` of `v`, if its type has one (bound), or an unsafe marker.
    func method(of v: Value, _ name: String) -> Value? {
        switch v {
        case .string, .markup:
            if TemplateInterpreter.stringMethods.contains(name) { return .callable(.method(v, name)) }
        case .dict:
            if TemplateInterpreter.dictMutators.contains(name) { return unsafe(v, name) }
            if TemplateInterpreter.dictMethods.contains(name) { return .callable(.method(v, name)) }
        case .list:
            if TemplateInterpreter.listMutators.contains(name) { return unsafe(v, name) }
            if TemplateInterpreter.listMethods.contains(name) { return .callable(.method(v, name)) }
        case .tuple, .range:
            if TemplateInterpreter.tupleMethods.contains(name) { return .callable(.method(v, name)) }
        default:
            break
        }
        return nil
    }

    /// `v.name`.
    func attribute(of v: Value, _ name: String) throws(TemplateError) -> Value {
        if case .undefined(let u) = v { throw u.error }
        if name.hasPrefix("_") { return noAttribute(v, name) }
        if let m = method(of: v, name) { return m }
        switch v {
        case .dict(let d):
            return d[name] ?? noAttribute(v, name)
        case .namespace(let ns):
            return ns.attributes[name] ?? noAttribute(v, name)
        case .loop(let loop):
            return loopAttribute(loop, name) ?? noAttribute(v, name)
        case .callable(.cycler(let state)):
            switch name {
            case "current": return state.items[state.position]
            case "items": return .list(state.items)
            case "next", "reset": return .callable(.method(v, name))
            default: return noAttribute(v, name)
            }
        case .int, .bool:
            if name == "real" { return v.numeric.map { if case .int(let i) = $0 { return .int(i) }; return v } ?? v }
            if name == "imag" { return .int(0) }
            return noAttribute(v, name)
        case .double(let d):
            if name == "real" { return .double(d) }
            if name == "imag" { return .double(0) }
            return noAttribute(v, name)
        default:
            return noAttribute(v, name)
        }
    }

    /// `v[key]`.
    func item(of v: Value, _ key: Value) throws(TemplateError) -> Value {
        if case .undefined(let u) = v { throw u.error }
        switch v {
        case .dict(let d):
            if let found = d.lookup(key) { return found }
            if let k = key.stringValue { return try attribute(of: v, k) }
        case .list(let a), .tuple(let a):
            if case .int(let i)? = key.numeric {
                let idx = i < 0 ? i + a.count : i
                if idx >= 0 && idx < a.count { return a[idx] }
                return .undefined(UndefinedInfo(name: String(i), owner: TemplateInterpreter.ownerDescription(v), isElement: true))
            }
        case .string(let s), .markup(let s):
            if case .int(let i)? = key.numeric {
                let scalars = s.unicodeScalars
                let count = scalars.count
                let idx = i < 0 ? i + count : i
                if idx >= 0 && idx < count {
                    return .string(String(scalars[scalars.index(scalars.startIndex, offsetBy: idx)]))
                }
                return .undefined(UndefinedInfo(name: String(i), owner: TemplateInterpreter.ownerDescription(v), isElement: true))
            }
        case .range(let r):
            if case .int(let i)? = key.numeric {
                let idx = i < 0 ? i + r.count : i
                if idx >= 0 && idx < r.count { return .int(r.element(idx)) }
                return .undefined(UndefinedInfo(name: String(i), owner: TemplateInterpreter.ownerDescription(v), isElement: true))
            }
        case .loop(let loop):
            if let k = key.stringValue { return loopAttribute(loop, k) ?? noAttribute(v, k) }
        default:
            break
        }
        if let k = key.stringValue { return try attribute(of: v, k) }
        return .undefined(UndefinedInfo(name: PythonFormat.repr(key), owner: TemplateInterpreter.ownerDescription(v), isElement: true))
    }

    func loopAttribute(_ loop: LoopContext, _ name: String) -> Value? {
        let n = loop.items.count
        let i = loop.index0
        switch name {
        case "index": return .int(i + 1)
        case "index0": return .int(i)
        case "revindex": return .int(n - i)
        case "revindex0": return .int(n - i - 1)
        case "first": return .bool(i == 0)
        case "last": return .bool(i == n - 1)
        case "length": return .int(n)
        case "depth": return .int(loop.depth0 + 1)
        case "depth0": return .int(loop.depth0)
        case "previtem":
            return i > 0 ? loop.items[i - 1] : .undefined(UndefinedInfo(hint: "there is no previous item"))
        case "nextitem":
            return i + 1 < n ? loop.items[i + 1] : .undefined(UndefinedInfo(hint: "there is no next item"))
        case "cycle": return .callable(.loopCycle(loop))
        case "changed": return .callable(.loopChanged(loop))
        default: return nil
        }
    }

    /// `v[a:b:c]` with Python's clamping. Jinja2 compiles slices to plain Python subscripts
    /// (not its forgiving `getitem`), so a slice of the wrong type is a `TypeError`.
    func slice(_ v: Value, _ a: Value?, _ b: Value?, _ c: Value?) throws(TemplateError) -> Value {
        switch v {
        case .undefined(let u): throw u.error
        case .list, .tuple, .string, .markup, .range: break
        case .dict: throw TemplateError.type("unhashable type: 'slice'")
        default: throw TemplateError.type("'\(v.typeName)' object is not subscriptable")
        }
        func index(_ x: Value?) -> (ok: Bool, value: Int?) {
            guard let x else { return (true, nil) }
            if case .none = x { return (true, nil) }
            if case .int(let i)? = x.numeric { return (true, i) }
            return (false, nil)
        }
        let (okA, start) = index(a), (okB, stop) = index(b), (okC, stepValue) = index(c)
        for bound in [a, b, c] { if case .undefined(let u)? = bound { throw u.error } }
        guard okA, okB, okC else {
            throw TemplateError.type("slice indices must be integers or None or have an __index__ method")
        }
        let step = stepValue ?? 1
        if step == 0 { throw TemplateError.value("slice step cannot be zero") }
        func indices(_ count: Int) -> [Int] {
            var lo: Int, hi: Int
            if step > 0 {
                lo = start.map { $0 < 0 ? max($0 + count, 0) : min($0, count) } ?? 0
                hi = stop.map { $0 < 0 ? max($0 + count, 0) : min($0, count) } ?? count
                return lo < hi ? Array(stride(from: lo, to: hi, by: step)) : []
            } else {
                lo = start.map { $0 < 0 ? max($0 + count, -1) : min($0, count - 1) } ?? count - 1
                hi = stop.map { $0 < 0 ? max($0 + count, -1) : min($0, count - 1) } ?? -1
                return lo > hi ? Array(stride(from: lo, to: hi, by: step)) : []
            }
        }
        switch v {
        case .list(let items): return .list(indices(items.count).map { items[$0] })
        case .range(let r):
            // Slicing a range gives a range (its bounds follow from the selected indices).
            let idx = indices(r.count)
            let (newStep, overflow) = r.step.multipliedReportingOverflow(by: step)
            guard let first = idx.first, let last = idx.last, !overflow else {
                if overflow || idx.count > 0 { return .list(idx.map { .int(r.element($0)) }) }
                let s = r.element(start.map { min(max($0 < 0 ? $0 + r.count : $0, 0), r.count) } ?? 0)
                return .range(PyRange(start: s, stop: s, step: newStep))
            }
            let (stop, stopOverflow) = r.element(last).addingReportingOverflow(newStep)
            if stopOverflow { return .list(idx.map { .int(r.element($0)) }) }
            return .range(PyRange(start: r.element(first), stop: stop, step: newStep))
        case .tuple(let items): return .tuple(indices(items.count).map { items[$0] })
        case .string(let s), .markup(let s):
            let scalars = Array(s.unicodeScalars)
            if step == 1 {
                let idx = indices(scalars.count)
                guard let first = idx.first, let last = idx.last else { return .string("") }
                return .string(PythonString.string(scalars[first...last]))
            }
            return .string(PythonString.string(indices(scalars.count).map { scalars[$0] }))
        default:
            throw TemplateError.type("'\(v.typeName)' object is not subscriptable")
        }
    }

    /// Python's `iter(v)` collected into an array.
    func iterate(_ v: Value) throws(TemplateError) -> [Value] {
        switch v {
        case .list(let a), .tuple(let a): return a
        case .dict(let d): return d.keys
        case .range(let r): return r.elements
        case .view(let v): return v.items
        case .string(let s), .markup(let s): return s.unicodeScalars.map { .string(String($0)) }
        case .generator(let g): return try g.drain()
        case .undefined: return []
        default: throw TemplateError.type("'\(v.typeName)' object is not iterable")
        }
    }
}
