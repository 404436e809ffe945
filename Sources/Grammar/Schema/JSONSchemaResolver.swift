import LoomJSON

/// A schema together with where it lives: the base URI its `$ref`s resolve against and its JSON
/// pointer (for error messages). `key` identifies it for memoisation.
struct SchemaLoc {
    let value: JSONValue
    let base: String
    let pointer: String
    let key: String
    /// The `$dynamicAnchor` bindings of the resources evaluation entered on the way here (empty
    /// for schemas without dynamic anchors). Part of `key`: the same location reached through
    /// different resources can resolve its `$dynamicRef`s differently.
    let scope: DynamicScope
    /// For a synthetic schema, what identifies its content: the serialized value for one the
    /// compiler made, the parent's identity plus the path for a part of one. Children and
    /// re-based copies derive it instead of serializing again (large negated subschemas made
    /// that quadratic).
    private let content: String?

    init(value: JSONValue, base: String, pointer: String, scope: DynamicScope = DynamicScope()) {
        self.value = value
        self.base = base
        self.pointer = pointer
        self.scope = scope
        key = base + "#" + pointer + scope.signature
        content = nil
    }

    /// A schema made by the compiler (negations, conditions); keyed by content.
    init(synthetic value: JSONValue, base: String, pointer: String, scope: DynamicScope = DynamicScope()) {
        self.init(value: value, base: base, pointer: pointer, content: value.serialized(), scope: scope)
    }

    private init(value: JSONValue, base: String, pointer: String, content: String, scope: DynamicScope) {
        self.value = value
        self.base = base
        self.pointer = pointer
        self.content = content
        self.scope = scope
        key = "syn:" + base + "#" + pointer + ":" + content + scope.signature
    }

    /// The same schema resolving references against `base`.
    func rebased(_ base: String) -> SchemaLoc {
        if let content { return SchemaLoc(value: value, base: base, pointer: pointer, content: content, scope: scope) }
        return SchemaLoc(value: value, base: base, pointer: pointer, scope: scope)
    }

    /// The same schema evaluated under `scope`.
    func scoped(_ scope: DynamicScope) -> SchemaLoc {
        if scope.signature == self.scope.signature { return self }
        if let content { return SchemaLoc(value: value, base: base, pointer: pointer, content: content, scope: scope) }
        return SchemaLoc(value: value, base: base, pointer: pointer, scope: scope)
    }

    func child(_ v: JSONValue, _ path: String...) -> SchemaLoc {
        var p = pointer
        var suffix = ""
        for c in path {
            let escaped = "/" + c.replacingAll("~", "~0").replacingAll("/", "~1")
            p += escaped
            suffix += escaped
        }
        if let content { return SchemaLoc(value: v, base: base, pointer: p, content: content + "\u{0}" + suffix, scope: scope) }
        return SchemaLoc(value: v, base: base, pointer: p, scope: scope)
    }
}

extension String {
    func replacingAll(_ a: Character, _ b: String) -> String {
        var out = ""
        for c in self { if c == a { out += b } else { out.append(c) } }
        return out
    }
}

/// Finds the schema a `$ref` names: embedded `$id` resources, anchors, JSON pointers, and
/// documents supplied by the caller (never the network).
struct SchemaResolver {
    let draft: JSONSchemaDraft
    private var resources: [String: SchemaLoc] = [:]
    private var anchors: [String: SchemaLoc] = [:]
    /// `$dynamicAnchor`s by resource URI + "#" + name (an `$anchor` of the same name does not
    /// take part in dynamic resolution).
    private var dynamicAnchorLocs: [String: SchemaLoc] = [:]
    /// The `$dynamicAnchor` names each resource defines, in document order.
    private(set) var dynamicAnchorNames: [String: [String]] = [:]
    private var loaded: Set<String> = []
    private let remotes: [String: JSONValue]
    static let defaultBase = "loom:/root.json"

    init(root: JSONValue, draft: JSONSchemaDraft, remotes: [String: JSONValue]) {
        self.draft = draft
        self.remotes = remotes
        index(root, base: SchemaResolver.defaultBase, pointer: "", docURI: SchemaResolver.defaultBase)
    }

    /// The base URI that applies inside `value` (its `$id` resolved against `base`).
    func baseInside(_ value: JSONValue, base: String) -> String {
        guard case .object(let o) = value else { return base }
        let idKey = draft == .draft4 ? "id" : "$id"
        if let id = o[idKey]?.stringValue, !id.hasPrefix("#") {
            // A `$id` next to `$ref` is ignored before 2019-09.
            if draft < .draft2019_09, o["$ref"] != nil { return base }
            return SchemaResolver.stripFragment(SchemaResolver.resolve(id, against: base))
        }
        return base
    }

    /// Records every resource (`$id`) and anchor, in document order. Iterative: a schema's depth
    /// must not decide whether the caller's thread stack overflows.
    private mutating func index(_ root: JSONValue, base rootBase: String, pointer rootPointer: String, docURI: String) {
        var work: [(value: JSONValue, base: String, pointer: String)] = [(root, rootBase, rootPointer)]
        while let (value, base, pointer) = work.popLast() {
            guard case .object(let o) = value else {
                if case .array(let xs) = value {
                    for (i, x) in xs.enumerated().reversed() { work.append((x, base, pointer + "/\(i)")) }
                }
                continue
            }
            let here = baseInside(value, base: base)
            // Each resource is addressed from its own root; keep the pointer relative to the document
            // for messages but remember which resource it is.
            // A location's `base` is the scope *around* it; its own `$id` is applied when it is read.
            if here != base || pointer.isEmpty {
                resources[here] = SchemaLoc(value: value, base: base, pointer: pointer)
            }
            let idKey = draft == .draft4 ? "id" : "$id"
            if let id = o[idKey]?.stringValue, id.hasPrefix("#"), id.count > 1 {
                anchors[SchemaResolver.stripFragment(base) + id] = SchemaLoc(value: value, base: base, pointer: pointer)
            }
            if let a = o["$anchor"]?.stringValue { anchors[here + "#" + a] = SchemaLoc(value: value, base: base, pointer: pointer) }
            if let a = o["$dynamicAnchor"]?.stringValue {
                let anchored = SchemaLoc(value: value, base: base, pointer: pointer)
                anchors[here + "#" + a] = anchored
                dynamicAnchorLocs[here + "#" + a] = anchored
                if !(dynamicAnchorNames[here]?.contains(a) ?? false) { dynamicAnchorNames[here, default: []].append(a) }
            }
            var children: [(value: JSONValue, base: String, pointer: String)] = []
            for (k, v) in o where k != "enum" && k != "const" && k != "examples" && k != "default" {
                children.append((v, here, pointer + "/" + k.replacingAll("~", "~0").replacingAll("/", "~1")))
            }
            work.append(contentsOf: children.reversed())
        }
    }

    /// Whether any document indexed so far defines a `$dynamicAnchor` (without one, dynamic
    /// scopes stay empty and cost nothing).
    var hasDynamicAnchors: Bool { !dynamicAnchorNames.isEmpty }

    /// The schema carrying `$dynamicAnchor: name` in the resource `resource`.
    func dynamicAnchor(_ name: String, in resource: String) -> SchemaLoc? { dynamicAnchorLocs[resource + "#" + name] }

    static func stripFragment(_ u: String) -> String {
        if let i = u.firstIndex(of: "#") { return String(u[..<i]) }
        return u
    }

    /// RFC 3986 §5.2 reference resolution (enough for schema identifiers).
    static func resolve(_ ref: String, against base: String) -> String {
        if ref.isEmpty { return base }
        if ref.hasPrefix("#") { return stripFragment(base) + ref }
        if let colon = ref.firstIndex(of: ":"), !ref[..<colon].contains("/") { return ref }
        let b = stripFragment(base)
        guard let colon = b.firstIndex(of: ":") else { return ref }
        let scheme = String(b[...colon])
        var rest = String(b[b.index(after: colon)...])
        if ref.hasPrefix("//") { return scheme + ref }
        var authority = ""
        if rest.hasPrefix("//") {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            authority = "//" + afterSlashes[..<end]
            rest = String(afterSlashes[end...])
        }
        var path: String
        if ref.hasPrefix("/") {
            path = ref
        } else {
            let dir = rest.lastIndex(of: "/").map { String(rest[...$0]) } ?? (authority.isEmpty ? "" : "/")
            path = dir + ref
        }
        // Remove dot segments.
        var fragment = ""
        if let h = path.firstIndex(of: "#") { fragment = String(path[h...]); path = String(path[..<h]) }
        var out: [Substring] = []
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for (i, p) in parts.enumerated() {
            if p == "." { if i == parts.count - 1 { out.append("") }; continue }
            if p == ".." { if out.count > 1 { out.removeLast() }; if i == parts.count - 1 { out.append("") }; continue }
            out.append(p)
        }
        return scheme + authority + out.joined(separator: "/") + fragment
    }

    /// Resolves `ref` found in a schema whose base URI is `base`.
    mutating func lookup(_ ref: String, base: String, pointer: String) throws(GrammarError) -> SchemaLoc {
        let target = SchemaResolver.resolve(ref, against: base)
        let doc = SchemaResolver.stripFragment(target)
        let fragment = target.firstIndex(of: "#").map { String(target[target.index(after: $0)...]) } ?? ""
        if resources[doc] == nil, !loaded.contains(doc), let remote = remotes[doc] {
            loaded.insert(doc)
            index(remote, base: doc, pointer: "", docURI: doc)
            if resources[doc] == nil { resources[doc] = SchemaLoc(value: remote, base: doc, pointer: "") }
        }
        if !fragment.isEmpty, !fragment.hasPrefix("/") {
            if let a = anchors[doc + "#" + fragment] { return a }
            throw GrammarError(.unresolvedReference, keyword: "$ref", pointer: pointer, "no anchor '\(fragment)' in \(doc)")
        }
        guard let root = resources[doc] else {
            throw GrammarError(.unresolvedReference, keyword: "$ref", pointer: pointer, "unknown document '\(doc)'")
        }
        var cur = root.value
        var curBase = root.base  // the scope around `cur`
        var p = root.pointer
        for raw in fragment.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let token = SchemaResolver.percentDecode(String(raw)).replacingOccurrences("~1", "/").replacingOccurrences("~0", "~")
            let inside = baseInside(cur, base: curBase)
            switch cur {
            case .object(let o):
                guard let v = o[token] else {
                    throw GrammarError(.unresolvedReference, keyword: "$ref", pointer: pointer, "'\(ref)' does not resolve")
                }
                cur = v
            case .array(let xs):
                guard let i = Int(token), i >= 0, i < xs.count else {
                    throw GrammarError(.unresolvedReference, keyword: "$ref", pointer: pointer, "'\(ref)' does not resolve")
                }
                cur = xs[i]
            default:
                throw GrammarError(.unresolvedReference, keyword: "$ref", pointer: pointer, "'\(ref)' does not resolve")
            }
            p += "/" + String(raw)
            curBase = inside
        }
        return SchemaLoc(value: cur, base: curBase, pointer: p)
    }

    static func percentDecode(_ s: String) -> String {
        guard s.contains("%") else { return s }
        var out: [UInt8] = []
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == 0x25, i + 2 < b.count, let v = UInt8(String(decoding: b[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                out.append(v)
                i += 3
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Byte offset of the first occurrence of `needle`, if any (no Foundation on Linux here).
    func firstOffset(of needle: String) -> Int? {
        let h = Array(utf8), n = Array(needle.utf8)
        guard !n.isEmpty, n.count <= h.count else { return nil }
        outer: for i in 0...(h.count - n.count) {
            for k in 0..<n.count where h[i + k] != n[k] { continue outer }
            return i
        }
        return nil
    }

    func contains(_ needle: String) -> Bool { firstOffset(of: needle) != nil }

    func replacingOccurrences(_ a: String, _ b: String) -> String {
        guard !a.isEmpty else { return self }
        var h = Array(utf8)[...]
        let n = Array(a.utf8)
        var out: [UInt8] = []
        while !h.isEmpty {
            if h.count >= n.count, h.prefix(n.count).elementsEqual(n) {
                out.append(contentsOf: b.utf8)
                h = h.dropFirst(n.count)
            } else {
                out.append(h.first!)
                h = h.dropFirst()
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
