import LoomJSON

/// A runtime value of the template language, modelled on the Python objects Jinja2 handles.
///
/// Python semantics that reach the output are kept: `int` and `float` stay distinct, `str`
/// compares by code points, dicts keep insertion order, `Markup` escapes what is added to it,
/// and generators (`map`, `select`, `items`, …) are single-use and not JSON serializable.
enum Value {
    case undefined(UndefinedInfo)
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// markupsafe's `Markup`: a string marked safe; concatenating a plain string escapes it.
    case markup(String)
    case list([Value])
    case tuple([Value])
    case dict(PyDict)
    /// Python's `range` (what the sandbox's `range()` returns): a lazy arithmetic sequence.
    case range(PyRange)
    /// `dict.keys()`, `.values()` or `.items()`: iterable and sized, but not indexable or JSON.
    case view(DictView)
    case namespace(Namespace)
    case generator(Generator)
    case callable(Callable)
    case loop(LoopContext)

    /// A plain missing variable.
    static func missing(_ name: String) -> Value { .undefined(UndefinedInfo(name: name)) }

    /// The text of a `str` or `Markup`.
    var stringValue: String? {
        switch self {
        case .string(let s), .markup(let s): return s
        default: return nil
        }
    }

    var isUndefined: Bool { if case .undefined = self { return true }; return false }
    var isNone: Bool { if case .none = self { return true }; return false }

    /// Python's `type(x).__name__`.
    var typeName: String {
        switch self {
        case .undefined: return "Undefined"
        case .none: return "NoneType"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "float"
        case .string: return "str"
        case .markup: return "Markup"
        case .list: return "list"
        case .tuple: return "tuple"
        case .dict: return "dict"
        case .range: return "range"
        case .view(let v): return "dict_\(v.kind.rawValue)"
        case .namespace: return "Namespace"
        case .generator: return "generator"
        case .callable(let c):
            switch c {
            case .macro: return "Macro"
            case .method: return "builtin_function_or_method"
            default: return "function"
            }
        case .loop: return "LoopContext"
        }
    }

    /// Python truthiness (`bool(x)`); an undefined value is falsy.
    var truthy: Bool {
        switch self {
        case .undefined, .none: return false
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .double(let d): return d != 0
        case .string(let s), .markup(let s): return !s.isEmpty
        case .list(let a), .tuple(let a): return !a.isEmpty
        case .dict(let d): return !d.isEmpty
        case .range(let r): return r.count > 0
        case .view(let v): return !v.items.isEmpty
        case .namespace, .generator, .callable, .loop: return true
        }
    }

    /// The value as a Python number (`bool` counts, as in Python), if it is one.
    var numeric: Numeric? {
        switch self {
        case .bool(let b): return .int(b ? 1 : 0)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        default: return nil
        }
    }

    /// A Python number.
    enum Numeric {
        case int(Int)
        case double(Double)
        var asDouble: Double {
            switch self {
            case .int(let i): return Double(i)
            case .double(let d): return d
            }
        }
    }

    /// Converts decoded JSON: integer literals become `int`, other numbers `float`.
    init(json: JSONValue) {
        switch json {
        case .null: self = .none
        case .bool(let b): self = .bool(b)
        case .number(let n):
            if n.isIntegerLiteral, let i = Int(n.literal) {
                self = .int(i)
            } else {
                // Integers beyond 64 bits become floats: Python would keep them exact, Loom cannot.
                self = .double(n.doubleValue)
            }
        case .string(let s): self = .string(s)
        case .array(let items): self = .list(items.map(Value.init(json:)))
        case .object(let obj):
            var d = PyDict()
            for (k, v) in obj { d[k] = Value(json: v) }
            self = .dict(d)
        }
    }
}

/// A dict view, as `dict.keys()`, `dict.values()` and `dict.items()` return.
struct DictView {
    enum Kind: String { case keys, values, items }
    let kind: Kind
    let items: [Value]
}

/// Python's `range(start, stop, step)`.
struct PyRange {
    let start: Int
    let stop: Int
    let step: Int

    var count: Int {
        // 128-bit arithmetic: slicing can produce bounds whose difference overflows 64 bits.
        let a = Int128(start), b = Int128(stop), s = Int128(step)
        let n: Int128
        if s > 0 { n = a < b ? (b - a - 1) / s + 1 : 0 } else { n = a > b ? (a - b - 1) / (-s) + 1 : 0 }
        return Int(clamping: n)
    }

    func element(_ i: Int) -> Int { start + i * step }

    var elements: [Value] { (0..<count).map { .int(element($0)) } }

    func contains(_ x: Int) -> Bool {
        if step > 0 ? !(x >= start && x < stop) : !(x <= start && x > stop) { return false }
        return (Int128(x) - Int128(start)) % Int128(step) == 0
    }

    /// Python's `repr`: `range(0, 3)` or `range(0, 10, 2)`.
    var repr: String { step == 1 ? "range(\(start), \(stop))" : "range(\(start), \(stop), \(step))" }
}

/// Why a value is undefined; decides the message when it is used.
struct UndefinedInfo {
    /// The missing name (variable, attribute or key), already in Python `repr` form when it is an element.
    var name: String?
    /// The object it was looked up on, as Python's `object_type_repr`, or nil for a missing variable.
    var owner: String?
    /// True when the lookup key was not a string (`has no element`).
    var isElement = false
    /// A fixed message that replaces the generated one.
    var hint: String?
    /// Using this value is a sandbox violation, not a plain undefined error.
    var security = false

    init(name: String? = nil, owner: String? = nil, isElement: Bool = false, hint: String? = nil, security: Bool = false) {
        self.name = name
        self.owner = owner
        self.isElement = isElement
        self.hint = hint
        self.security = security
    }

    /// Jinja2's `Undefined._undefined_message`.
    var message: String {
        if let hint { return hint }
        guard let owner else { return "'\(name ?? "")' is undefined" }
        if isElement { return "\(owner) has no element \(name ?? "")" }
        return "'\(owner)' has no attribute '\(name ?? "")'"
    }

    var error: TemplateError { TemplateError(security ? .security : .undefined, message) }
}

/// An insertion-ordered dict. Keys follow Python's hashing rules: `1`, `1.0` and `True` are the
/// same key, and strings compare by code points (not canonical equivalence).
struct PyDict {
    private(set) var keys: [Value] = []
    private(set) var values: [Value] = []
    private var hashKeys: [HashKey] = []
    /// Built only for larger dicts: small ones (the common case) are scanned linearly.
    private var index: [HashKey: Int]?

    init() {}

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    func position(of key: HashKey) -> Int? {
        if let index { return index[key] }
        return hashKeys.firstIndex(of: key)
    }

    func position(of key: String) -> Int? { position(of: .string(ExactKey(key))) }

    subscript(key: String) -> Value? {
        get { position(of: key).map { values[$0] } }
        set { set(.string(key), .string(ExactKey(key)), newValue) }
    }

    /// Lookup by any value; nil when absent or unhashable.
    func lookup(_ key: Value) -> Value? {
        guard let h = HashKey(key), let i = position(of: h) else { return nil }
        return values[i]
    }

    /// Stores `value` under `key`; throws for unhashable keys (lists, dicts).
    mutating func insert(_ key: Value, _ value: Value) throws(TemplateError) {
        guard let h = HashKey(key) else { throw TemplateError.type("unhashable type: '\(key.typeName)'") }
        set(key, h, value)
    }

    private mutating func set(_ key: Value, _ h: HashKey, _ newValue: Value?) {
        if let i = position(of: h) {
            if let newValue {
                values[i] = newValue
            } else {
                keys.remove(at: i)
                values.remove(at: i)
                hashKeys.remove(at: i)
                rebuildIndex()
            }
        } else if let newValue {
            keys.append(key)
            values.append(newValue)
            hashKeys.append(h)
            if index != nil {
                index![h] = keys.count - 1
            } else if keys.count > 12 {
                rebuildIndex()
            }
        }
    }

    private mutating func rebuildIndex() {
        guard keys.count > 12 else { index = nil; return }
        var idx: [HashKey: Int] = [:]
        for (i, k) in hashKeys.enumerated() { idx[k] = i }
        index = idx
    }

    /// `(key, value)` pairs in order.
    var items: [(Value, Value)] { Array(zip(keys, values)) }
}

/// A dict key with Python's equality: numbers by value, strings by code points.
enum HashKey: Hashable {
    case string(ExactKey)
    case int(Int)
    case double(Double)
    case none
    case tuple([HashKey])

    init?(_ v: Value) {
        switch v {
        case .string(let s), .markup(let s): self = .string(ExactKey(s))
        case .bool(let b): self = .int(b ? 1 : 0)
        case .int(let i): self = .int(i)
        case .double(let d):
            if d == d.rounded(), abs(d) < 9.2e18 { self = .int(Int(d)) } else { self = .double(d) }
        case .none: self = .none
        case .tuple(let items):
            var keys: [HashKey] = []
            for item in items {
                guard let k = HashKey(item) else { return nil }
                keys.append(k)
            }
            self = .tuple(keys)
        default: return nil
        }
    }
}

/// A string key that compares by code points, as Python does.
struct ExactKey: Hashable {
    let text: String
    init(_ text: String) { self.text = text }
    static func == (a: ExactKey, b: ExactKey) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }
    func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }
}

/// Jinja2's `namespace()`: the one mutable object templates can assign attributes on.
final class Namespace {
    var attributes: PyDict
    /// How deeply values nest below this namespace. Namespace attributes are the only way a
    /// value survives a loop iteration, so bounding this bounds every structure a template can
    /// grow (deeper ones would exhaust the stack when printed or freed).
    var depth = 1
    init(_ attributes: PyDict) { self.attributes = attributes }

    /// Values may nest this deep below a namespace.
    static let maximumDepth = 256

    /// Stores an attribute, refusing values that would nest too deeply.
    func assign(_ name: String, _ value: Value) throws(TemplateError) {
        let d = value.nestingDepth(limit: Namespace.maximumDepth) + 1
        if d > Namespace.maximumDepth {
            throw TemplateError(.limit, "value assigned to namespace attribute '\(name)' nests deeper than \(Namespace.maximumDepth) levels")
        }
        depth = max(depth, d)
        attributes[name] = value
    }
}

extension Value {
    /// Container nesting depth (scalars 0), computed no further than `limit`.
    func nestingDepth(limit: Int) -> Int {
        func deepest(_ items: [Value]) -> Int {
            guard limit > 0 else { return 1 }
            var m = 0
            for item in items {
                switch item {
                case .list, .tuple, .dict, .view, .namespace, .generator, .loop:
                    m = max(m, item.nestingDepth(limit: limit - 1))
                    if m >= limit { return 1 + m }
                default:
                    continue
                }
            }
            return 1 + m
        }
        switch self {
        case .list(let a), .tuple(let a): return deepest(a)
        case .dict(let d): return deepest(d.values)
        case .view(let v): return deepest(v.items)
        case .namespace(let ns): return ns.depth
        case .generator(let g): return deepest(g.pending)
        case .loop(let l): return deepest(l.items)
        default: return 0
        }
    }
}

/// A single-use iterator produced by `map`, `select`, `items`, `reverse`, `unique`, ….
///
/// Its items are computed eagerly (the functions involved have no side effects), but a failure
/// is reported only when it is iterated, and a second iteration sees nothing, as in Python.
final class Generator {
    private var items: [Value]
    private let failure: TemplateError?
    private var consumed = false

    init(_ items: [Value]) { self.items = items; failure = nil }

    /// The items not yet taken.
    var pending: [Value] { consumed ? [] : items }
    init(failure: TemplateError) { items = []; self.failure = failure }

    /// Takes the remaining items.
    func drain() throws(TemplateError) -> [Value] {
        if let failure { throw failure }
        if consumed { return [] }
        consumed = true
        let out = items
        items = []
        return out
    }
}

/// Something a template can call.
indirect enum Callable {
    case macro(Macro)
    /// A global function by name (`raise_exception`, `strftime_now`, `namespace`, `range`, `dict`, …).
    case builtin(String)
    /// A method bound to its receiver (`message.content.strip`).
    case method(Value, String)
    case loopCycle(LoopContext)
    case loopChanged(LoopContext)
    /// Jinja2's `joiner(sep)`: returns "" the first time, then `sep`.
    case joiner(JoinerState)
    /// Jinja2's `cycler(*items)`: `.next()`, `.current`, `.reset()`.
    case cycler(CyclerState)
}

final class JoinerState {
    let separator: String
    var used = false
    init(separator: String) { self.separator = separator }
}

final class CyclerState {
    let items: [Value]
    var position = 0
    init(items: [Value]) { self.items = items }
}

/// A macro closed over the scope it was defined in.
final class Macro {
    let definition: MacroDefinition
    let closure: Scope
    /// The body of the `{% call %}` block this macro stands for as `caller`, if any.
    init(definition: MacroDefinition, closure: Scope) {
        self.definition = definition
        self.closure = closure
    }
}

/// The `loop` variable of a `for` statement.
final class LoopContext {
    let items: [Value]
    var index0 = 0
    let depth0: Int
    var lastChanged: [Value]?
    /// For `{% for … recursive %}`: the loop and its enclosing scope, so `loop(children)` can
    /// render the body again one level deeper.
    let recursion: (node: ForLoopNode, scope: Scope)?
    init(items: [Value], depth0: Int, recursion: (node: ForLoopNode, scope: Scope)?) {
        self.items = items
        self.depth0 = depth0
        self.recursion = recursion
    }
}

/// A variable scope: the template's top level, a `for` body or a macro call.
///
/// Scopes hold few names and identifiers are short (compared inline as small strings), so a
/// linear scan beats hashing here.
final class Scope {
    private var names: [String] = []
    private var values: [Value] = []
    let parent: Scope?
    init(parent: Scope?) { self.parent = parent }

    /// This scope's own binding of `name` (not its parents').
    subscript(name: String) -> Value? {
        get {
            for i in names.indices where names[i] == name { return values[i] }
            return nil
        }
        set {
            if let i = names.firstIndex(of: name) {
                if let newValue { values[i] = newValue } else { names.remove(at: i); values.remove(at: i) }
            } else if let newValue {
                names.append(name)
                values.append(newValue)
            }
        }
    }

    func lookup(_ name: String) -> Value? {
        var s: Scope? = self
        while let scope = s {
            for i in scope.names.indices where scope.names[i] == name { return scope.values[i] }
            s = scope.parent
        }
        return nil
    }
}
