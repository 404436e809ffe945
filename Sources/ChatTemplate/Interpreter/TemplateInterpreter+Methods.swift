/// Python methods of `str`, `dict`, `list` and `tuple` that templates call.
extension TemplateInterpreter {
    /// Calls `receiver.name(...)` when the receiver's type has that method; nil otherwise.
    func callMethodIfAny(_ receiver: Value, _ name: String, _ args: EvaluatedArguments) throws(TemplateError) -> Value? {
        switch receiver {
        case .undefined(let u):
            throw u.error
        case .string(let s):
            guard TemplateInterpreter.stringMethods.contains(name) else { return nil }
            return try stringMethod(s, name, args)
        case .markup(let s):
            guard TemplateInterpreter.stringMethods.contains(name) else { return nil }
            let result = try stringMethod(s, name, args)
            // Markup's own methods keep the result marked safe.
            if case .string(let r) = result, ["strip", "lstrip", "rstrip", "replace", "upper", "lower", "title", "capitalize", "format", "join"].contains(name) {
                return .markup(r)
            }
            return result
        case .dict(let d):
            guard TemplateInterpreter.dictMethods.contains(name) else { return nil }
            if TemplateInterpreter.dictMutators.contains(name) { throw unsafeMethod(receiver, name) }
            return try dictMethod(d, name, args)
        case .list(let a):
            guard TemplateInterpreter.listMethods.contains(name) else { return nil }
            if TemplateInterpreter.listMutators.contains(name) { throw unsafeMethod(receiver, name) }
            return try sequenceMethod(a, receiver, name, args)
        case .tuple(let a):
            guard TemplateInterpreter.tupleMethods.contains(name) else { return nil }
            return try sequenceMethod(a, receiver, name, args)
        case .callable(.cycler(let state)):
            switch name {
            case "next":
                let current = state.items[state.position]
                state.position = (state.position + 1) % state.items.count
                return current
            case "reset":
                state.position = 0
                return Value.none
            default:
                return nil
            }
        case .range(let r):
            guard TemplateInterpreter.tupleMethods.contains(name) else { return nil }
            return try sequenceMethod(r.elements, receiver, name, args)
        default:
            return nil
        }
    }

    private func unsafeMethod(_ v: Value, _ name: String) -> TemplateError {
        TemplateError(.security, "access to attribute '\(name)' of '\(v.typeName)' object is unsafe.")
    }

    private func optionalString(_ v: Value?, _ method: String) throws(TemplateError) -> String? {
        guard let v else { return nil }
        if case .none = v { return nil }
        guard let s = v.stringValue else {
            throw TemplateError.type("\(method) arg must be None or str")
        }
        return s
    }

    private func requiredString(_ v: Value?, _ method: String) throws(TemplateError) -> String {
        guard let v else { throw TemplateError.type("\(method)() takes at least 1 argument (0 given)") }
        guard let s = v.stringValue else {
            if case .undefined(let u) = v { throw u.error }
            throw TemplateError.type("must be str, not \(v.typeName)")
        }
        return s
    }

    private func intArgument(_ v: Value?, default d: Int) throws(TemplateError) -> Int {
        guard let v else { return d }
        if case .int(let i)? = v.numeric { return i }
        if case .none = v { return d }
        throw TemplateError.type("'\(v.typeName)' object cannot be interpreted as an integer")
    }

    /// Applies Python's `start`/`end` arguments to a string (code points).
    private func window(_ s: String, _ start: Value?, _ end: Value?) throws(TemplateError) -> (String, Int) {
        if start == nil && end == nil { return (s, 0) }
        let scalars = Array(s.unicodeScalars)
        let n = scalars.count
        var a = try intArgument(start, default: 0)
        var b = try intArgument(end, default: n)
        if a < 0 { a = max(0, a + n) }
        if b < 0 { b = max(0, b + n) }
        a = min(a, n)
        b = min(b, n)
        if a >= b { return ("", a) }
        return (PythonString.string(scalars[a..<b]), a)
    }

    private func stringMethod(_ s: String, _ name: String, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        switch name {
        case "strip", "lstrip", "rstrip":
            try args.check(name, names: ["chars"])
            let chars = try optionalString(args.value(0, "chars"), name)
            return .string(PythonString.strip(s, chars: chars, left: name != "rstrip", right: name != "lstrip"))
        case "split", "rsplit":
            try args.check(name, names: ["sep", "maxsplit"])
            let sep = try optionalString(args.value(0, "sep"), name)
            let maxSplit = try intArgument(args.value(1, "maxsplit"), default: -1)
            let parts = name == "split" ? try PythonString.split(s, separator: sep, maxSplit: maxSplit)
                : try PythonString.rsplit(s, separator: sep, maxSplit: maxSplit)
            return .list(parts.map { .string($0) })
        case "startswith", "endswith":
            try args.check(name, names: ["prefix", "start", "end"])
            guard let p = args.value(0, "prefix") else { throw TemplateError.type("\(name)() takes at least 1 argument (0 given)") }
            let (text, _) = try window(s, args.value(1, "start"), args.value(2, "end"))
            var candidates: [String] = []
            switch p {
            case .string(let x), .markup(let x): candidates = [x]
            case .tuple(let items):
                for item in items {
                    guard let x = item.stringValue else {
                        throw TemplateError.type("tuple for \(name) must only contain str, not \(item.typeName)")
                    }
                    candidates.append(x)
                }
            case .undefined(let u): throw u.error
            default:
                throw TemplateError.type("\(name) first arg must be str or a tuple of str, not \(p.typeName)")
            }
            let test = name == "startswith" ? PythonString.hasPrefix : PythonString.hasSuffix
            return .bool(candidates.contains { test(text, $0) })
        case "replace":
            try args.check(name, names: ["old", "new", "count"])
            let old = try requiredString(args.value(0, "old"), name)
            let new = try requiredString(args.value(1, "new"), name)
            let count = try intArgument(args.value(2, "count"), default: -1)
            return .string(PythonString.replace(s, old, new, count: count))
        case "upper": return .string(PythonString.upper(s))
        case "lower", "casefold": return .string(PythonString.lower(s))
        case "title": return .string(PythonString.title(s))
        case "capitalize": return .string(PythonString.capitalize(s))
        case "swapcase": return .string(PythonString.swapCase(s))
        case "find", "rfind", "index", "rindex", "count":
            try args.check(name, names: ["sub", "start", "end"])
            let sub = try requiredString(args.value(0, "sub"), name)
            let (text, offset) = try window(s, args.value(1, "start"), args.value(2, "end"))
            let hay = Array(text.utf8), needle = Array(sub.utf8)
            if name == "count" {
                if needle.isEmpty { return .int(PythonString.length(text) + 1) }
                var n = 0, pos = 0
                while let hit = PythonString.find(hay, needle, from: pos) { n += 1; pos = hit + needle.count }
                return .int(n)
            }
            let hit = name.hasPrefix("r") ? PythonString.rfind(hay, needle) : PythonString.find(hay, needle)
            guard let hit else {
                if name.hasSuffix("index") { throw TemplateError.value("substring not found") }
                return .int(-1)
            }
            return .int(PythonString.scalarIndex(hay, hit) + offset)
        case "join":
            try args.check(name, names: ["iterable"])
            guard let iterable = args.value(0, "iterable") else { throw TemplateError.type("join() takes exactly one argument (0 given)") }
            var parts: [String] = []
            for (i, item) in try iterate(iterable).enumerated() {
                guard let x = item.stringValue else {
                    throw TemplateError.type("sequence item \(i): expected str instance, \(item.typeName) found")
                }
                parts.append(x)
            }
            return .string(parts.joined(separator: s))
        case "format":
            return .string(try PythonFormatSpec.format(s, args, interpreter: self))
        case "splitlines":
            try args.check(name, names: ["keepends"])
            let keep = args.value(0, "keepends")?.truthy ?? false
            return .list(PythonString.splitLines(s, keepEnds: keep).map { .string($0) })
        case "isdigit", "isdecimal", "isnumeric":
            return .bool(PythonString.all(s) { name == "isnumeric" ? $0.properties.numericType != nil : PythonString.isDigit($0) })
        case "isalpha": return .bool(PythonString.all(s, PythonString.isAlpha))
        case "isalnum": return .bool(PythonString.all(s) { PythonString.isAlpha($0) || $0.properties.numericType != nil })
        case "isspace": return .bool(PythonString.all(s, PythonString.isSpace))
        case "isascii": return .bool(s.unicodeScalars.allSatisfy { $0.isASCII })
        case "isupper": return .bool(PythonString.isUpperString(s))
        case "islower": return .bool(PythonString.isLowerString(s))
        case "istitle": return .bool(PythonString.isTitle(s))
        case "isprintable": return .bool(s.unicodeScalars.allSatisfy(PythonFormat.isPrintable))
        case "isidentifier":
            guard let first = s.unicodeScalars.first, first == "_" || PythonString.isAlpha(first) else { return .bool(false) }
            return .bool(s.unicodeScalars.allSatisfy { $0 == "_" || PythonString.isAlpha($0) || PythonString.isDigit($0) })
        case "center", "ljust", "rjust":
            try args.check(name, names: ["width", "fillchar"])
            let width = try checkedSize(try intArgument(args.value(0, "width"), default: 0), "width")
            var fill: Unicode.Scalar = " "
            if let f = args.value(1, "fillchar") {
                guard let fs = f.stringValue, fs.unicodeScalars.count == 1 else {
                    throw TemplateError.type("The fill character must be exactly one character long")
                }
                fill = fs.unicodeScalars.first!
            }
            if name == "center" { return .string(PythonString.center(s, width: width, fill: fill)) }
            return .string(PythonString.pad(s, width: width, align: name == "ljust" ? "<" : ">", fill: fill))
        case "zfill":
            let width = try checkedSize(try intArgument(args.value(0, "width"), default: 0), "width")
            let len = PythonString.length(s)
            guard width > len else { return .string(s) }
            let zeros = String(repeating: "0", count: width - len)
            if let first = s.unicodeScalars.first, first == "+" || first == "-" {
                return .string(String(first) + zeros + PythonString.string(s.unicodeScalars.dropFirst()))
            }
            return .string(zeros + s)
        case "partition", "rpartition":
            let sep = try requiredString(args.value(0, "sep"), name)
            guard !sep.isEmpty else { throw TemplateError.value("empty separator") }
            let hay = Array(s.utf8), needle = Array(sep.utf8)
            let hit = name == "partition" ? PythonString.find(hay, needle) : PythonString.rfind(hay, needle)
            guard let hit else {
                return name == "partition" ? .tuple([.string(s), .string(""), .string("")]) : .tuple([.string(""), .string(""), .string(s)])
            }
            return .tuple([.string(String(decoding: hay[..<hit], as: UTF8.self)), .string(sep),
                           .string(String(decoding: hay[(hit + needle.count)...], as: UTF8.self))])
        case "removeprefix":
            let p = try requiredString(args.value(0, "prefix"), name)
            if PythonString.hasPrefix(s, p) { return .string(String(decoding: Array(s.utf8)[p.utf8.count...], as: UTF8.self)) }
            return .string(s)
        case "removesuffix":
            let p = try requiredString(args.value(0, "suffix"), name)
            if !p.isEmpty && PythonString.hasSuffix(s, p) {
                let bytes = Array(s.utf8)
                return .string(String(decoding: bytes[..<(bytes.count - p.utf8.count)], as: UTF8.self))
            }
            return .string(s)
        case "expandtabs":
            let size = try checkedSize(try intArgument(args.value(0, "tabsize"), default: 8), "tab size")
            var out = ""
            var column = 0
            for c in s.unicodeScalars {
                if c == "\t" {
                    let spaces = size > 0 ? size - column % size : 0
                    out += String(repeating: " ", count: spaces)
                    column += spaces
                } else {
                    out.unicodeScalars.append(c)
                    column = (c == "\n" || c == "\r") ? 0 : column + 1
                }
            }
            return .string(out)
        default:
            throw TemplateError.runtime("str.\(name)() is not supported")
        }
    }

    private func dictMethod(_ d: PyDict, _ name: String, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        switch name {
        case "get":
            try args.check(name, names: ["key", "default"])
            guard let key = args.value(0, "key") else { throw TemplateError.type("get expected at least 1 argument, got 0") }
            let fallback: Value = args.value(1, "default") ?? Value.none
            return d.lookup(key) ?? fallback
        case "items":
            return .view(DictView(kind: .items, items: d.items.map { .tuple([$0.0, $0.1]) }))
        case "keys":
            return .view(DictView(kind: .keys, items: d.keys))
        case "values":
            return .view(DictView(kind: .values, items: d.values))
        case "copy":
            return .dict(d)
        default:
            throw TemplateError.runtime("dict.\(name)() is not supported")
        }
    }

    private func sequenceMethod(_ a: [Value], _ receiver: Value, _ name: String, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        switch name {
        case "count":
            guard let x = args.value(0, "value") else { throw TemplateError.type("count() takes exactly one argument (0 given)") }
            return .int(a.filter { Value.pyEqual($0, x) }.count)
        case "index":
            guard let x = args.value(0, "value") else { throw TemplateError.type("index expected at least 1 argument, got 0") }
            guard let i = a.firstIndex(where: { Value.pyEqual($0, x) }) else {
                throw TemplateError.value("\(PythonFormat.repr(x)) is not in \(receiver.typeName)")
            }
            return .int(i)
        case "copy":
            return .list(a)
        default:
            throw TemplateError.runtime("\(receiver.typeName).\(name)() is not supported")
        }
    }
}
