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
