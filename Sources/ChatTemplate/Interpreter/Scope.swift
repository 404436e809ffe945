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

    /// Drops every binding, releasing what this scope holds (see `TemplateInterpreter.releaseCycles`).
    func removeAll() {
        names.removeAll()
        values.removeAll()
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
