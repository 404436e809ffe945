#if canImport(Glibc)
import Glibc
#endif
import LoomJSON

/// The inputs `loom grammar replay` reads: a MaskBench-style JSONL suite, or the official JSON
/// Schema Test Suite directory with its remote documents.
extension GrammarReplay {
    static func loadSuite(_ path: String) throws -> [Item] {
        var items: [Item] = []
        for line in try FileInput.text(path).split(separator: "\n") where !line.isEmpty {
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
            guard case .array(let groups) = try JSONValue(parsing: try FileInput.text(f)) else { continue }
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
                    out["http://localhost:1234/" + r] = try JSONValue(parsing: try FileInput.text(remotes + "/" + r))
                } else if !e.contains(".") {
                    try walk(r)
                }
            }
        }
        try walk("")
        return out
    }
}
