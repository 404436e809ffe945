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
