import LoomJSON

/// The part of 2020-12's dynamic scope a `$dynamicRef` reads: for each `$dynamicAnchor` name, the
/// outermost schema resource entered so far that defines it.
///
/// Evaluation enters a resource whenever it reaches a schema inside it (by nesting, `$ref` or
/// `$dynamicRef`), and a `$dynamicRef` whose initial target carries a matching `$dynamicAnchor`
/// resolves to the outermost entered resource that defines that anchor. Along one compile path the
/// resources entered are known statically, and only the first resource to define a name can ever
/// win, so these bindings (at most one per anchor name) are all of the scope a location needs:
/// keying locations by them keeps recursive schemas finite.
struct DynamicScope {
    /// Anchor name → URI of the outermost entered resource that defines it.
    private(set) var bindings: [String: String] = [:]
    /// `bindings` as canonical text, appended to location keys ("" when empty, so schemas without
    /// dynamic anchors keep their keys).
    private(set) var signature = ""

    /// The scope after entering `resource`, which defines the dynamic anchors `names`.
    func entering(_ resource: String, defining names: [String]) -> DynamicScope {
        var out = self
        var changed = false
        for n in names where out.bindings[n] == nil {
            out.bindings[n] = resource
            changed = true
        }
        guard changed else { return self }
        out.signature = "\u{3}" + out.bindings.sorted { $0.key < $1.key }.map { $0.key + "\u{5}" + $0.value }.joined(separator: "\u{6}")
        return out
    }
}

extension JSONSchemaCompiler {
    /// `loc` (whose own resource is `resource`) with that resource entered into its dynamic scope.
    func entered(_ loc: SchemaLoc, resource: String) -> SchemaLoc {
        guard resolver.hasDynamicAnchors, let names = resolver.dynamicAnchorNames[resource] else { return loc }
        return loc.scoped(loc.scope.entering(resource, defining: names))
    }

    /// The schema `$ref` names from `loc`, evaluated in `loc`'s dynamic scope.
    mutating func refTarget(_ ref: String, from loc: SchemaLoc, base: String, pointer: String) throws(GrammarError) -> SchemaLoc {
        try resolver.lookup(ref, base: base, pointer: pointer).scoped(loc.scope)
    }

    /// The schema `$dynamicRef` names from `loc` (whose scope includes its own resource).
    ///
    /// The reference resolves like `$ref` first; only when that target carries a `$dynamicAnchor`
    /// equal to the fragment (the "bookend") does the outermost resource in the dynamic scope
    /// defining that anchor take its place. A JSON-pointer fragment, an `$anchor`, or a
    /// non-matching `$dynamicAnchor` all leave it a plain reference.
    mutating func dynamicTarget(_ ref: String, from loc: SchemaLoc, base: String, pointer: String) throws(GrammarError) -> SchemaLoc {
        let target = try resolver.lookup(ref, base: base, pointer: pointer)
        if let h = ref.firstIndex(of: "#") {
            let name = String(ref[ref.index(after: h)...])
            if !name.isEmpty, !name.hasPrefix("/"), case .object(let t) = target.value, t["$dynamicAnchor"]?.stringValue == name,
               let outer = loc.scope.bindings[name], let bound = resolver.dynamicAnchor(name, in: outer) {
                return bound.scoped(loc.scope)
            }
        }
        return target.scoped(loc.scope)
    }
}
