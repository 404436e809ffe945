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
