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
