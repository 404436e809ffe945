/// The global functions Hugging Face's chat-template environment provides.
enum TemplateGlobals {
    static let names: Set<String> = ["raise_exception", "strftime_now", "namespace", "range", "dict", "joiner", "cycler"]
    /// The sandbox's `MAX_RANGE`.
    static let maximumRange = 100_000
}

extension TemplateInterpreter {
    func callGlobal(_ name: String, _ args: EvaluatedArguments) throws(TemplateError) -> Value {
        switch name {
        case "raise_exception":
            let message = args.value(0, "message").map(PythonFormat.str) ?? ""
            throw TemplateError(.raised, message)
        case "strftime_now":
            guard let pattern = args.value(0, "format")?.stringValue else {
                throw TemplateError.type("strftime_now() argument must be str")
            }
            return .string(now.format(pattern))
        case "namespace":
            var attributes = PyDict()
            for p in args.positional {
                switch p {
                case .dict(let d): for (k, v) in d.items { try attributes.insert(k, v) }
                default:
                    for pair in try iterate(p) {
                        let kv = try iterate(pair)
                        guard kv.count == 2 else {
                            throw TemplateError.type("cannot convert namespace argument to a dict")
                        }
                        try attributes.insert(kv[0], kv[1])
                    }
                }
            }
            for (k, v) in args.keyword { attributes[k] = v }
            if let bad = attributes.keys.compactMap(\.stringValue).first(where: { $0.hasPrefix("_") }) {
                throw TemplateError(.security, "namespace attribute '\(bad)' is not allowed")
            }
            let ns = track(Namespace(PyDict()))
            for (k, v) in attributes.items { try ns.assign(k.stringValue ?? "", v) }
            return .namespace(ns)
        case "joiner":
            let separator = args.value(0, "sep").map(PythonFormat.str) ?? ", "
            return .callable(.joiner(JoinerState(separator: separator)))
        case "cycler":
            guard !args.positional.isEmpty else { throw TemplateError.runtime("at least one item has to be provided") }
            return .callable(.cycler(CyclerState(items: args.positional)))
        case "dict":
            var d = PyDict()
            for p in args.positional {
                guard case .dict(let other) = p else { throw TemplateError.type("dict() positional argument must be a mapping") }
                for (k, v) in other.items { try d.insert(k, v) }
            }
            for (k, v) in args.keyword { d[k] = v }
            return .dict(d)
        case "range":
            var bounds: [Int] = []
            for p in args.positional {
                guard case .int(let i)? = p.numeric else {
                    if case .undefined(let u) = p { throw u.error }
                    throw TemplateError.type("'\(p.typeName)' object cannot be interpreted as an integer")
                }
                bounds.append(i)
            }
            let (start, stop, step): (Int, Int, Int)
            switch bounds.count {
            case 1: (start, stop, step) = (0, bounds[0], 1)
            case 2: (start, stop, step) = (bounds[0], bounds[1], 1)
            case 3: (start, stop, step) = (bounds[0], bounds[1], bounds[2])
            default: throw TemplateError.type("range expected 1 to 3 arguments, got \(bounds.count)")
            }
            if step == 0 { throw TemplateError.value("range() arg 3 must not be zero") }
            // Bounds this large cannot make a range the sandbox allows; refusing them keeps all
            // range arithmetic far from overflow.
            if [start, stop, step].contains(where: { $0.magnitude > 1 << 60 }) {
                throw TemplateError(.limit, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (\(TemplateGlobals.maximumRange)).")
            }
            let estimate = (Double(stop) - Double(start)) / Double(step)
            if estimate > Double(TemplateGlobals.maximumRange) {
                throw TemplateError(.limit, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (\(TemplateGlobals.maximumRange)).")
            }
            let range = PyRange(start: start, stop: stop, step: step)
            if range.count > TemplateGlobals.maximumRange {
                throw TemplateError(.limit, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (\(TemplateGlobals.maximumRange)).")
            }
            return .range(range)
        default:
            throw TemplateError.runtime("unknown global '\(name)'")
        }
    }
}
