/// Recursive-descent parser with Jinja2's grammar and operator precedence.
///
/// Precedence, loosest first (as in `jinja2.parser`): conditional `a if c else b`, `or`, `and`,
/// `not`, comparisons and `in`, `+`/`-`, `~`, `*`/`/`/`//`/`%`, `**`, unary `-`/`+`, then
/// postfix (`.x`, `[i]`, calls) followed by filters (`|f`) and tests (`is t`).
struct TemplateParser {
    private let lexer: TemplateLexer
    private let tokens: [TemplateToken]
    private var index = 0
    private var depth = 0
    /// Deep nesting is refused instead of overflowing the stack.
    static let maximumDepth = 150

    init(source: String) throws(TemplateError) {
        var lexer = TemplateLexer(source: source)
        tokens = try lexer.tokenize()
        self.lexer = lexer
    }

    mutating func parseTemplate() throws(TemplateError) -> [Node] {
        let (body, end) = try parseBody(until: [])
        if let end { throw error("Encountered unknown tag '\(end)'.") }
        return body
    }

    // MARK: - Token helpers

    private var current: TemplateToken.Kind { tokens[index].kind }

    private func error(_ message: String, at i: Int? = nil) -> TemplateError {
        lexer.error(message, at: tokens[min(i ?? index, tokens.count - 1)].offset)
    }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func isOp(_ op: String) -> Bool { if case .op(op) = current { return true }; return false }
    private func isName(_ name: String) -> Bool { if case .name(name) = current { return true }; return false }

    private mutating func skipOp(_ op: String) -> Bool {
        if isOp(op) { advance(); return true }
        return false
    }

    private mutating func skipName(_ name: String) -> Bool {
        if isName(name) { advance(); return true }
        return false
    }

    private mutating func expectOp(_ op: String) throws(TemplateError) {
        guard skipOp(op) else { throw error("expected '\(op)', got \(describe(current))") }
    }

    private mutating func expectName() throws(TemplateError) -> String {
        guard case .name(let n) = current else { throw error("expected name, got \(describe(current))") }
        advance()
        return n
    }

    private mutating func expectBlockEnd() throws(TemplateError) {
        guard case .blockEnd = current else { throw error("expected token 'end of statement block', got \(describe(current))") }
        advance()
    }

    private func describe(_ kind: TemplateToken.Kind) -> String {
        switch kind {
        case .text: return "template data"
        case .blockBegin: return "'{%'"
        case .blockEnd: return "'%}'"
        case .variableBegin: return "'{{'"
        case .variableEnd: return "'}}'"
        case .name(let n): return "'\(n)'"
        case .string: return "string"
        case .integer, .float: return "number"
        case .op(let o): return "'\(o)'"
        case .end: return "end of template"
        }
    }

    /// Each operator in a left-associative chain deepens the tree by one level; counting them
    /// keeps evaluation (and destruction) of the tree within the stack.
    private mutating func deepen(_ extra: inout Int) throws(TemplateError) {
        try enter()
        extra += 1
    }

    private mutating func enter() throws(TemplateError) {
        depth += 1
        if depth > TemplateParser.maximumDepth { throw error("template nested too deeply") }
    }

    // MARK: - Statements

    /// Parses nodes until a block tag whose name is in `endTags`; returns that name (the
    /// tag's name token is consumed, the rest of the tag is not).
    private mutating func parseBody(until endTags: Set<String>, in block: String? = nil) throws(TemplateError) -> ([Node], String?) {
        try enter()
        defer { depth -= 1 }
        var nodes: [Node] = []
        while true {
            switch current {
            case .end:
                if !endTags.isEmpty {
                    var message = "Unexpected end of template. Jinja was looking for the following tags: \(endTags.sorted().map { "'\($0)'" }.joined(separator: " or "))."
                    if let block { message += " The innermost block that needs to be closed is '\(block)'." }
                    throw error(message)
                }
                return (nodes, nil)
            case .text(let t):
                nodes.append(.text(t))
                advance()
            case .variableBegin:
                advance()
                let e = try parseTuple()
                guard case .variableEnd = current else { throw error("expected '}}', got \(describe(current))") }
                advance()
                nodes.append(.output(e))
            case .blockBegin:
                let tagIndex = index
                advance()
                guard case .name(let tag) = current else { throw error("tag name expected") }
                if endTags.contains(tag) {
                    advance()
                    return (nodes, tag)
                }
                advance()
                nodes.append(try parseStatement(tag, at: tagIndex))
            default:
                throw error("unexpected \(describe(current))")
            }
        }
    }

    private mutating func parseStatement(_ tag: String, at tagIndex: Int) throws(TemplateError) -> Node {
        switch tag {
        case "if": return try parseIf()
        case "for": return try parseFor()
        case "set": return try parseSet()
        case "macro": return try parseMacro()
        case "call": return try parseCallBlock()
        case "filter":
            let filters = try parseFilterChain()
            try expectBlockEnd()
            let (body, _) = try parseBody(until: ["endfilter"], in: "filter")
            try expectBlockEnd()
            return .filterBlock(filters, body)
        case "with":
            var assignments: [(String, Expr)] = []
            while !isBlockEnd {
                if !assignments.isEmpty { try expectOp(",") }
                let name = try expectName()
                try expectOp("=")
                assignments.append((name, try parseExpression()))
            }
            try expectBlockEnd()
            let (body, _) = try parseBody(until: ["endwith"], in: "with")
            try expectBlockEnd()
            return .with(assignments, body)
        case "generation":
            // transformers' tag: it only records offsets, the body renders unchanged.
            try expectBlockEnd()
            let (body, _) = try parseBody(until: ["endgeneration"], in: "generation")
            try expectBlockEnd()
            return .generation(body)
        case "break", "continue":
            try expectBlockEnd()
            return tag == "break" ? .breakLoop : .continueLoop
        default:
            if ["elif", "else", "endif", "endfor", "endset", "endmacro", "endcall", "endfilter", "endwith", "endgeneration"].contains(tag) {
                throw error("Encountered unknown tag '\(tag)'.", at: tagIndex + 1)
            }
            throw error("Encountered unknown tag '\(tag)'.", at: tagIndex + 1)
        }
    }

    private var isBlockEnd: Bool { if case .blockEnd = current { return true }; return false }

    private mutating func parseIf() throws(TemplateError) -> Node {
        var branches: [(Expr, [Node])] = []
        // Jinja2 parses `if`/`elif` tests without a top-level conditional expression.
        var condition = try parseTuple(withConditional: false)
        while true {
            try expectBlockEnd()
            let (body, end) = try parseBody(until: ["elif", "else", "endif"], in: "if")
            branches.append((condition, body))
            switch end {
            case "elif":
                condition = try parseTuple(withConditional: false)
            case "else":
                try expectBlockEnd()
                let (elseBody, _) = try parseBody(until: ["endif"], in: "if")
                try expectBlockEnd()
                return .ifChain(branches, otherwise: elseBody)
            default:
                try expectBlockEnd()
                return .ifChain(branches, otherwise: nil)
            }
        }
    }

    private mutating func parseFor() throws(TemplateError) -> Node {
        let target = try parseAssignTarget(allowNamespace: false)
        guard skipName("in") else { throw error("expected 'in', got \(describe(current))") }
        let iterable = try parseTuple(withConditional: false, extraEnd: ["recursive"])
        var condition: Expr?
        if skipName("if") { condition = try parseExpression() }
        let recursive = skipName("recursive")
        try expectBlockEnd()
        let (body, end) = try parseBody(until: ["endfor", "else"], in: "for")
        var elseBody: [Node] = []
        if end == "else" {
            try expectBlockEnd()
            (elseBody, _) = try parseBody(until: ["endfor"], in: "for")
        }
        try expectBlockEnd()
        return .forLoop(ForLoopNode(target: target, iterable: iterable, condition: condition, body: body,
                                    elseBody: elseBody, recursive: recursive))
    }

    private mutating func parseSet() throws(TemplateError) -> Node {
        let target = try parseAssignTarget(allowNamespace: true)
        if skipOp("=") {
            let value = try parseTuple()
            try expectBlockEnd()
            return .set(target, value)
        }
        let filters = skipOp("|") ? try parseFilterChain() : []
        try expectBlockEnd()
        let (body, _) = try parseBody(until: ["endset"], in: "set")
        try expectBlockEnd()
        return .setBlock(target, body, filters)
    }

    private mutating func parseAssignTarget(allowNamespace: Bool) throws(TemplateError) -> AssignTarget {
        let parenthesized = skipOp("(")
        let first = try expectName()
        if allowNamespace && !parenthesized && skipOp(".") {
            return .attribute(first, try expectName())
        }
        var names = [first]
        var sawComma = false
        while skipOp(",") {
            sawComma = true
            if case .name(let n) = current, n != "in" {
                advance()
                names.append(n)
            } else {
                break
            }
        }
        if parenthesized { try expectOp(")") }
        return sawComma || parenthesized && names.count > 1 ? .names(names) : .name(first)
    }

    private mutating func parseMacroParameters() throws(TemplateError) -> [(String, Expr?)] {
        var params: [(String, Expr?)] = []
        try expectOp("(")
        while !isOp(")") {
            if !params.isEmpty { try expectOp(",") }
            if isOp(")") { break }
            let name = try expectName()
            var defaultValue: Expr?
            if skipOp("=") { defaultValue = try parseExpression() }
            params.append((name, defaultValue))
        }
        try expectOp(")")
        return params
    }

    private mutating func parseMacro() throws(TemplateError) -> Node {
        let name = try expectName()
        let params = try parseMacroParameters()
        try expectBlockEnd()
        let (body, _) = try parseBody(until: ["endmacro"], in: "macro")
        if case .name = current { advance() }  // `{% endmacro name %}`
        try expectBlockEnd()
        return .macro(MacroDefinition(name: name, parameters: params, body: body))
    }

    private mutating func parseCallBlock() throws(TemplateError) -> Node {
        let params = isOp("(") ? try parseMacroParameters() : []
        let call = try parseExpression()
        guard case .call = call else { throw error("expected call") }
        try expectBlockEnd()
        let (body, _) = try parseBody(until: ["endcall"], in: "call")
        try expectBlockEnd()
        return .callBlock(MacroDefinition(name: "caller", parameters: params, body: body), call)
    }

    private mutating func parseFilterChain() throws(TemplateError) -> [FilterCall] {
        var filters: [FilterCall] = []
        repeat {
            let name = try parseDottedName()
            let args = isOp("(") ? try parseCallArguments() : CallArguments()
            filters.append(FilterCall(name: name, arguments: args))
        } while skipOp("|")
        return filters
    }

    // MARK: - Expressions

    /// `a, b` as a tuple, or a single expression.
    private mutating func parseTuple(withConditional: Bool = true, extraEnd: Set<String> = []) throws(TemplateError) -> Expr {
        var items: [Expr] = []
        var sawComma = false
        while true {
            if !items.isEmpty {
                guard skipOp(",") else { break }
                sawComma = true
            }
            if isTupleEnd(extraEnd) { break }
            items.append(withConditional ? try parseExpression() : try parseOr())
        }
        if !sawComma {
            guard let only = items.first else { throw error("expected an expression, got \(describe(current))") }
            return only
        }
        return .tuple(items)
    }

    private func isTupleEnd(_ extra: Set<String>) -> Bool {
        switch current {
        case .variableEnd, .blockEnd, .end: return true
        case .op(let o): return o == ")" || o == "]" || o == "}"
        case .name(let n): return extra.contains(n) || n == "if" && extra.contains("recursive")
        default: return false
        }
    }

    mutating func parseExpression() throws(TemplateError) -> Expr {
        try enter()
        defer { depth -= 1 }
        var expr = try parseOr()
        var extra = 0
        defer { depth -= extra }
        while skipName("if") {
            try deepen(&extra)
            let test = try parseOr()
            var otherwise: Expr?
            if skipName("else") { otherwise = try parseExpression() }
            expr = .conditional(test: test, then: expr, otherwise: otherwise)
        }
        return expr
    }

    private mutating func parseOr() throws(TemplateError) -> Expr {
        var left = try parseAnd()
        var extra = 0
        defer { depth -= extra }
        while skipName("or") { try deepen(&extra); left = .or(left, try parseAnd()) }
        return left
    }

    private mutating func parseAnd() throws(TemplateError) -> Expr {
        var left = try parseNot()
        var extra = 0
        defer { depth -= extra }
        while skipName("and") { try deepen(&extra); left = .and(left, try parseNot()) }
        return left
    }

    private mutating func parseNot() throws(TemplateError) -> Expr {
        if skipName("not") {
            try enter()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parseCompare()
    }

    private mutating func parseCompare() throws(TemplateError) -> Expr {
        let left = try parseMath1()
        var ops: [(CompareOperator, Expr)] = []
        while true {
            if case .op(let o) = current, let op = CompareOperator(rawValue: o), op != .contains, op != .notContains {
                advance()
                ops.append((op, try parseMath1()))
            } else if skipName("in") {
                ops.append((.contains, try parseMath1()))
            } else if isName("not"), case .name("in") = tokens[min(index + 1, tokens.count - 1)].kind {
                advance(); advance()
                ops.append((.notContains, try parseMath1()))
            } else {
                break
            }
        }
        return ops.isEmpty ? left : .compare(left, ops)
    }

    private mutating func parseMath1() throws(TemplateError) -> Expr {
        var left = try parseConcat()
        var extra = 0
        defer { depth -= extra }
        while true {
            if isOp("+") || isOp("-") { try deepen(&extra) }
            if skipOp("+") { left = .binary(.add, left, try parseConcat()) }
            else if skipOp("-") { left = .binary(.subtract, left, try parseConcat()) }
            else { return left }
        }
    }

    private mutating func parseConcat() throws(TemplateError) -> Expr {
        var parts = [try parseMath2()]
        while skipOp("~") { parts.append(try parseMath2()) }
        return parts.count == 1 ? parts[0] : .concat(parts)
    }

    private mutating func parseMath2() throws(TemplateError) -> Expr {
        var left = try parsePow()
        var extra = 0
        defer { depth -= extra }
        while true {
            let op: BinaryOperator
            if isOp("*") { op = .multiply } else if isOp("/") { op = .divide }
            else if isOp("//") { op = .floorDivide } else if isOp("%") { op = .modulo } else { return left }
            advance()
            try deepen(&extra)
            left = .binary(op, left, try parsePow())
        }
    }

    private mutating func parsePow() throws(TemplateError) -> Expr {
        var left = try parseUnary(withFilter: true)
        var extra = 0
        defer { depth -= extra }
        while skipOp("**") { try deepen(&extra); left = .binary(.power, left, try parseUnary(withFilter: true)) }
        return left
    }

    private mutating func parseUnary(withFilter: Bool) throws(TemplateError) -> Expr {
        try enter()
        defer { depth -= 1 }
        var node: Expr
        if skipOp("-") {
            node = .negate(try parseUnary(withFilter: false))
        } else if skipOp("+") {
            node = .plus(try parseUnary(withFilter: false))
        } else {
            node = try parsePrimary()
        }
        node = try parsePostfix(node)
        if withFilter { node = try parseFilterExpression(node) }
        return node
    }

    private mutating func parsePrimary() throws(TemplateError) -> Expr {
        switch current {
        case .name(let n):
            advance()
            switch n {
            case "true", "True": return .literal(.bool(true))
            case "false", "False": return .literal(.bool(false))
            case "none", "None": return .literal(.none)
            default: return .name(n)
            }
        case .string(var s):
            advance()
            while case .string(let more) = current { s += more; advance() }
            return .literal(.string(s))
        case .integer(let i):
            advance()
            return .literal(.int(i))
        case .float(let d):
            advance()
            return .literal(.double(d))
        case .op("("):
            advance()
            if skipOp(")") { return .tuple([]) }
            var items: [Expr] = [try parseExpression()]
            var sawComma = false
            while skipOp(",") {
                sawComma = true
                if isOp(")") { break }
                items.append(try parseExpression())
            }
            try expectOp(")")
            return sawComma ? .tuple(items) : items[0]
        case .op("["):
            advance()
            var items: [Expr] = []
            while !isOp("]") {
                if !items.isEmpty { try expectOp(","); if isOp("]") { break } }
                items.append(try parseExpression())
            }
            try expectOp("]")
            return .list(items)
        case .op("{"):
            advance()
            var pairs: [(Expr, Expr)] = []
            while !isOp("}") {
                if !pairs.isEmpty { try expectOp(","); if isOp("}") { break } }
                let key = try parseExpression()
                try expectOp(":")
                pairs.append((key, try parseExpression()))
            }
            try expectOp("}")
            return .dict(pairs)
        default:
            throw error("unexpected \(describe(current))")
        }
    }

    private mutating func parsePostfix(_ start: Expr) throws(TemplateError) -> Expr {
        var node = start
        var extra = 0
        defer { depth -= extra }
        while true {
            if isOp(".") || isOp("[") || isOp("(") { try deepen(&extra) }
            if skipOp(".") {
                switch current {
                case .name(let n): advance(); node = .attribute(node, n)
                case .integer(let i): advance(); node = .item(node, .literal(.int(i)))
                default: throw error("expected name or number after '.'")
                }
            } else if skipOp("[") {
                node = try parseSubscript(node)
            } else if isOp("(") {
                node = .call(node, try parseCallArguments())
            } else {
                return node
            }
        }
    }

    private mutating func parseSubscript(_ target: Expr) throws(TemplateError) -> Expr {
        var parts: [Expr] = []
        var isSlice = false
        var slice: [Expr?] = [nil, nil, nil]
        repeat {
            if isOp("]") { break }
            // A slice `a:b:c` (each part optional) or a plain expression.
            var lower: Expr?
            if !isOp(":") { lower = try parseExpression() }
            if skipOp(":") {
                isSlice = true
                slice[0] = lower
                if !isOp("]") && !isOp(":") && !isOp(",") { slice[1] = try parseExpression() }
                if skipOp(":") {
                    if !isOp("]") && !isOp(",") { slice[2] = try parseExpression() }
                }
            } else if let lower {
                parts.append(lower)
            }
        } while skipOp(",")
        try expectOp("]")
        if isSlice { return .slice(target, slice[0], slice[1], slice[2]) }
        guard !parts.isEmpty else { throw error("expected subscript expression") }
        return .item(target, parts.count == 1 ? parts[0] : .tuple(parts))
    }

    private mutating func parseCallArguments() throws(TemplateError) -> CallArguments {
        try expectOp("(")
        var args = CallArguments()
        var first = true
        while !isOp(")") {
            if !first { try expectOp(","); if isOp(")") { break } }
            first = false
            if skipOp("**") {
                args.doubleStar = try parseExpression()
            } else if skipOp("*") {
                args.star = try parseExpression()
            } else if case .name(let n) = current, case .op("=") = tokens[min(index + 1, tokens.count - 1)].kind {
                advance(); advance()
                args.keyword.append((n, try parseExpression()))
            } else {
                if !args.keyword.isEmpty { throw error("positional argument follows keyword argument") }
                args.positional.append(try parseExpression())
            }
        }
        try expectOp(")")
        return args
    }

    private mutating func parseDottedName() throws(TemplateError) -> String {
        var name = try expectName()
        while isOp("."), case .name(let more) = tokens[min(index + 1, tokens.count - 1)].kind {
            advance(); advance()
            name += "." + more
        }
        return name
    }

    private mutating func parseFilterExpression(_ start: Expr) throws(TemplateError) -> Expr {
        var node = start
        var extra = 0
        defer { depth -= extra }
        while true {
            if isOp("|") || isOp("(") || isName("is") { try deepen(&extra) }
            if skipOp("|") {
                let name = try parseDottedName()
                let args = isOp("(") ? try parseCallArguments() : CallArguments()
                node = .filter(node, name, args)
            } else if skipName("is") {
                let negated = skipName("not")
                let name = try parseDottedName()
                var args = CallArguments()
                if isOp("(") {
                    args = try parseCallArguments()
                } else if startsTestArgument {
                    let arg = try parsePostfix(try parsePrimary())
                    args.positional = [arg]
                }
                node = .test(node, name, args, negated: negated)
            } else if isOp("(") {
                node = .call(node, try parseCallArguments())
            } else {
                return node
            }
        }
    }

    /// Jinja2 accepts one argument without parentheses: `x is divisibleby 3`.
    private var startsTestArgument: Bool {
        switch current {
        case .name(let n): return n != "else" && n != "or" && n != "and"
        case .string, .integer, .float: return true
        case .op(let o): return o == "(" || o == "[" || o == "{"
        default: return false
        }
    }
}
