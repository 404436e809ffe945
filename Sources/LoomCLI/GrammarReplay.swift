#if canImport(Glibc)
import Glibc
#endif
import Engine
import Grammar
import LoomJSON

/// The replay benchmark behind `loom grammar replay`.
enum GrammarReplay {
    struct Case { let valid: Bool; let text: String }
    struct Item { let id: String; let schema: JSONValue; let cases: [Case] }

    static func run(_ arguments: [String]) throws {
        let args = try Arguments(arguments, flags: ["lenient", "verbose", "json"], options: ["model", "suite", "jsts", "limit", "dump-masks"],
                                 aliases: ["m": "model"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        guard (args.value("suite") == nil) != (args.value("jsts") == nil) else { throw UsageError("give exactly one of --suite, --jsts") }
        let modelPath = args.modelPath
        let file = try GGUFFile(path: modelPath)
        let tokenizer = try Tokenizer(gguf: file)
        let n = tokenizer.vocabularySize
        var tokens: [[UInt8]] = []
        tokens.reserveCapacity(n)
        for id in 0..<n { tokens.append(tokenizer.tokenBytes(Int32(id))) }
        let vocab = Vocabulary(tokens: tokens, endOfGeneration: tokenizer.endOfGenerationTokens.map(Int.init))

        var options = JSONSchemaOptions.recognition
        options.lenient = args.has("lenient")
        var items: [Item]
        if let suite = args.value("suite") {
            items = try loadSuite(suite)
        } else {
            let dir = args.value("jsts")!
            items = try loadJSTS(dir)
            options.remoteDocuments = try loadRemotes(dir)
        }
        if let limit = try args.int("limit") { items = Array(items.prefix(limit)) }

        var maskNs: [UInt64] = [], compileNs: [UInt64] = []
        var withTests = 0, compiled = 0, passed = 0, instances = 0, invalidAccepted = 0, validRejected = 0
        var forced = 0, validTokens = 0, timeouts = 0
        var densitySum = 0.0, densityCount = 0
        var perSchema: [JSONValue] = []
        var mask = [UInt64](repeating: 0, count: vocab.maskWordCount)
        let eos = vocab.endOfGeneration.first ?? -1
        // LOOM_REPLAY_SLOW=µs (default 2000): report every valid-instance mask slower than that.
        let slowNs = ProcessEnvironment.value("LOOM_REPLAY_SLOW").map { (UInt64($0) ?? 2000) * 1000 }
        let slowReport = slowNs != nil

        let progress = ProcessEnvironment.value("LOOM_REPLAY_PROGRESS") != nil
        var bar = Progress(json: args.has("json") || progress)
        // `--dump-masks DIR`: every mask computed for a valid instance, for comparisons with other
        // engines (Benchmarks/grammar/llguidance-compare): vocab.json, masks.bin (raw UInt64 words,
        // one mask after another), steps.jsonl (one line per valid instance).
        var dump: MaskDump?
        if let dir = args.value("dump-masks") {
            dump = try MaskDump(directory: dir, vocabulary: vocab, tokenizer: tokenizer)
        }
        for (index, item) in items.enumerated() {
            bar.step("grammar replay: schema", perSchema.count + 1, of: items.count)
            if progress { StandardError.line("schema \(item.id)") }
            if !item.cases.isEmpty { withTests += 1 }
            let t0 = threadCPUNanos()
            let grammar: Grammar
            do { grammar = try Grammar(jsonSchema: item.schema, options: options) } catch {
                perSchema.append(.object(JSONObject([("id", .string(item.id)), ("compiled", false), ("error", .string(error.description)),
                                                     ("passed", false), ("tests", .array([]))])))
                continue
            }
            let base = GrammarMatcher(grammar: grammar, vocabulary: vocab)
            base.mask(into: &mask)
            compileNs.append(threadCPUNanos() - t0)
            compiled += 1
            var ok = true
            var tests: [JSONValue] = []
            for c in item.cases {
                instances += 1
                let ids = tokenizer.encode(c.text, addBOS: false, parseSpecial: false)
                let m = base.fork()
                var rejectedAt: Int?
                var timedOut = false
                let started = threadCPUNanos()
                var dumpedNs: [UInt64] = []
                let dumpStart = dump?.steps ?? 0
                for (k, t) in ids.enumerated() {
                    // A pathological ambiguous grammar must not stall the benchmark: give up after
                    // 5 s of CPU on one instance and count it as rejected there (reported).
                    if threadCPUNanos() - started > 5_000_000_000 { rejectedAt = k; timedOut = true; break }
                    let before = slowReport ? m.debugSummary : ""
                    let s = threadCPUNanos()
                    m.mask(into: &mask)
                    let e = threadCPUNanos()
                    let tok = Int(t)
                    let inMask = mask[tok >> 6] >> UInt64(tok & 63) & 1 == 1
                    if c.valid {
                        maskNs.append(e - s)
                        if let dump { dump.write(mask); dumpedNs.append(e - s) }
                        if let slowNs, e - s > slowNs {
                            let prefix = tokenizer.tokenBytes(t)
                            StandardError.line("slow mask \((e - s) / 1000) µs: \(item.id) token \(k) next=\(String(decoding: prefix, as: UTF8.self)) \(before.prefix(200))")
                        }
                        var pop = 0
                        for w in mask { pop += w.nonzeroBitCount }
                        densitySum += Double(pop) / Double(vocab.size)
                        densityCount += 1
                        if pop == 1 { forced += 1 }
                        validTokens += 1
                    }
                    if !inMask || !m.accept(token: tok) { rejectedAt = k; break }
                }
                if rejectedAt == nil {
                    let s = threadCPUNanos()
                    m.mask(into: &mask)
                    if c.valid, let dump { dumpedNs.append(threadCPUNanos() - s); dump.write(mask) }
                    if eos < 0 || mask[eos >> 6] >> UInt64(eos & 63) & 1 == 0 { rejectedAt = ids.count }
                }
                let accepted = rejectedAt == nil
                if c.valid, let dump {
                    dump.line(index: index, id: item.id, tokens: ids.map(Int.init), nanos: dumpedNs, first: dumpStart)
                }
                if accepted != c.valid {
                    ok = false
                    if c.valid { validRejected += 1 } else { invalidAccepted += 1 }
                }
                var tc: [(String, JSONValue)] = [("valid", .bool(c.valid)), ("accepted", .bool(accepted))]
                tc.append(("rejected_at", rejectedAt.map { .number(JSONNumber($0)) } ?? .null))
                if timedOut { tc.append(("timed_out", true)); timeouts += 1 }
                tests.append(.object(JSONObject(tc)))
            }
            if ok && !item.cases.isEmpty { passed += 1 }
            perSchema.append(.object(JSONObject([("id", .string(item.id)), ("compiled", true), ("error", .null),
                                                 ("passed", .bool(ok && !item.cases.isEmpty)), ("tests", .array(tests))])))
        }

        bar.clear()
        func pct(_ xs: [UInt64], _ p: Double, scale: Double) -> JSONValue {
            guard !xs.isEmpty else { return .null }
            let s = xs.sorted()
            let i = min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))
            return .number(JSONNumber(Double(s[i]) / scale))
        }
        func stats(_ xs: [UInt64], scale: Double) -> JSONValue {
            .object(JSONObject([("p50", pct(xs, 0.5, scale: scale)), ("p99", pct(xs, 0.99, scale: scale)), ("max", pct(xs, 1.0, scale: scale))]))
        }
        let name = modelPath.split(separator: "/").last.map(String.init) ?? modelPath
        var doc: [(String, JSONValue)] = [
            ("vocab", .string(name)), ("vocab_size", .number(JSONNumber(vocab.size))),
            ("schemas", .number(JSONNumber(items.count))), ("with_tests", .number(JSONNumber(withTests))),
            ("compiled", .number(JSONNumber(compiled))), ("passed", .number(JSONNumber(passed))),
            ("pass_rate", .number(JSONNumber(withTests == 0 ? 0 : Double(passed) / Double(withTests)))),
            ("instances", .number(JSONNumber(instances))), ("invalid_accepted", .number(JSONNumber(invalidAccepted))),
            ("valid_rejected", .number(JSONNumber(validRejected))),
            ("mask_us", stats(maskNs, scale: 1000)), ("compile_ms", stats(compileNs, scale: 1_000_000)),
            ("forced_share", .number(JSONNumber(validTokens == 0 ? 0 : Double(forced) / Double(validTokens)))),
            ("mask_density", .number(JSONNumber(densityCount == 0 ? 0 : densitySum / Double(densityCount)))),
            ("timeouts", .number(JSONNumber(timeouts))),
        ]
        if args.has("verbose") { doc.append(("per_schema", .array(perSchema))) }
        let out = JSONValue.object(JSONObject(doc))
        if args.has("json") {
            StandardOutput.write(out.serialized() + "\n")
        } else {
            StandardOutput.write(out.serialized(.pretty) + "\n")
        }
    }

    /// Masks written by `--dump-masks`.
    final class MaskDump {
        let masks: UnsafeMutablePointer<FILE>
        let lines: UnsafeMutablePointer<FILE>
        private(set) var steps = 0

        init(directory: String, vocabulary: Vocabulary, tokenizer: Tokenizer) throws {
            mkdir(directory, 0o755)
            var tokens: [JSONValue] = []
            for id in 0..<vocabulary.size {
                let hex = vocabulary.bytes(of: id).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                tokens.append(.string(hex))
            }
            let doc = JSONValue.object(JSONObject([
                ("eos", .array(vocabulary.endOfGeneration.map { .number(JSONNumber($0)) })),
                ("words", .number(JSONNumber(vocabulary.maskWordCount))),
                ("tokens", .array(tokens)),
            ]))
            guard let v = fopen(directory + "/vocab.json", "wb"), let m = fopen(directory + "/masks.bin", "wb"),
                  let l = fopen(directory + "/steps.jsonl", "wb") else { throw RuntimeError("cannot write to \(directory)") }
            let text = doc.serialized()
            fputs(text, v)
            fclose(v)
            masks = m
            lines = l
        }

        deinit {
            fclose(masks)
            fclose(lines)
        }

        func write(_ mask: [UInt64]) {
            _ = mask.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, masks) }
            steps += 1
        }

        func line(index: Int, id: String, tokens: [Int], nanos: [UInt64], first: Int) {
            let doc = JSONValue.object(JSONObject([
                ("schema", .number(JSONNumber(index))), ("id", .string(id)), ("first", .number(JSONNumber(first))),
                ("tokens", .array(tokens.map { .number(JSONNumber($0)) })),
                ("mask_ns", .array(nanos.map { .number(JSONNumber(Int($0))) })),
            ]))
            fputs(doc.serialized() + "\n", lines)
        }
    }

    static func loadSuite(_ path: String) throws -> [Item] {
        var items: [Item] = []
        for line in try readFile(path).split(separator: "\n") where !line.isEmpty {
            guard case .object(let row) = try JSONValue(parsing: String(line)), let schema = row["schema"] else { continue }
            var cases: [Case] = []
            if case .array(let ts) = row["tests"] ?? .array([]) {
                for t in ts {
                    guard case .object(let o) = t, let valid = o["valid"]?.boolValue else { continue }
                    let text = o["text"]?.stringValue ?? o["data"]?.serialized() ?? ""
                    cases.append(Case(valid: valid, text: text))
                }
            }
            items.append(Item(id: row["id"]?.stringValue ?? "\(items.count)", schema: schema, cases: cases))
        }
        return items
    }

    static func listDirectory(_ path: String) -> [String] {
        guard let d = opendir(path) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in String(cString: raw.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }

    /// `DIR` is `…/jsts/draft2020-12` (or `…/jsts`): every required file except the annotation-only
    /// `format.json`, plus `optional/format/`.
    static func loadJSTS(_ dirArg: String) throws -> [Item] {
        var dir = dirArg
        if listDirectory(dir).contains("draft2020-12") { dir += "/draft2020-12" }
        var files = listDirectory(dir).filter { $0.hasSuffix(".json") && $0 != "format.json" }.map { dir + "/" + $0 }
        files += listDirectory(dir + "/optional/format").filter { $0.hasSuffix(".json") }.map { dir + "/optional/format/" + $0 }
        var items: [Item] = []
        for f in files {
            guard case .array(let groups) = try JSONValue(parsing: try readFile(f)) else { continue }
            for g in groups {
                guard case .object(let o) = g, let schema = o["schema"], case .array(let ts) = o["tests"] ?? .array([]) else { continue }
                let cases = ts.compactMap { t -> Case? in
                    guard case .object(let c) = t, let d = c["data"], let v = c["valid"]?.boolValue else { return nil }
                    return Case(valid: v, text: d.serialized())
                }
                let short = f.split(separator: "/").suffix(2).joined(separator: "/")
                items.append(Item(id: short + ": " + (o["description"]?.stringValue ?? ""), schema: schema, cases: cases))
            }
        }
        return items
    }

    static func loadRemotes(_ dirArg: String) throws -> [String: JSONValue] {
        var root = dirArg
        while root.hasSuffix("/") { root.removeLast() }
        if root.hasSuffix("draft2020-12") { root = String(root.dropLast("draft2020-12".count)) }
        let remotes = root + "/remotes"
        var out: [String: JSONValue] = [:]
        func walk(_ rel: String) throws {
            let path = rel.isEmpty ? remotes : remotes + "/" + rel
            for e in listDirectory(path) {
                let r = rel.isEmpty ? e : rel + "/" + e
                if e.hasSuffix(".json") {
                    out["http://localhost:1234/" + r] = try JSONValue(parsing: try readFile(remotes + "/" + r))
                } else if !e.contains(".") {
                    try walk(r)
                }
            }
        }
        try walk("")
        return out
    }
}
