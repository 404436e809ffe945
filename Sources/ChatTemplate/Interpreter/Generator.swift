/// A single-use iterator produced by `map`, `select`, `items`, `reverse`, `unique`, ….
///
/// Its items are computed eagerly (the functions involved have no side effects), but a failure
/// is reported only when it is iterated, and a second iteration sees nothing, as in Python.
final class Generator {
    private var items: [Value]
    private let failure: TemplateError?
    private var consumed = false

    init(_ items: [Value]) { self.items = items; failure = nil }

    /// A generator whose iteration throws `failure`.
    init(failure: TemplateError) { items = []; self.failure = failure }

    /// The items not yet taken.
    var pending: [Value] { consumed ? [] : items }

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
