import LoomJSON

extension JSONSchemaCompiler {
    /// Deepest JSON nesting a schema may have (real schemas nest a few dozen levels; MaskBench's deepest is 62).
    static let maximumDepth = 128

    /// Fails with a typed error naming the first location nested deeper than `maximumDepth`.
    ///
    /// Iterative on purpose: the checks after it (indexing `$id`s, compiling) recurse with the
    /// schema's depth, and this is what keeps that recursion bounded for values built in code.
    static func checkDepth(_ root: JSONValue) throws(GrammarError) {
        // Nodes visited, each with its parent and the key or index that leads to it, so the
        // pointer is only built for the location reported.
        var parents: [Int] = [-1]
        var keys: [String] = [""]
        var work: [(value: JSONValue, node: Int, depth: Int)] = [(root, 0, 0)]
        while let (value, node, depth) = work.popLast() {
            switch value {
            case .array(let xs):
                guard !xs.isEmpty else { continue }
                if depth >= maximumDepth { throw tooDeep(node, parents, keys) }
                for (i, x) in xs.enumerated() {
                    parents.append(node)
                    keys.append(String(i))
                    work.append((x, parents.count - 1, depth + 1))
                }
            case .object(let o):
                guard !o.isEmpty else { continue }
                if depth >= maximumDepth { throw tooDeep(node, parents, keys) }
                for (k, x) in o.members {
                    parents.append(node)
                    keys.append(k.replacingAll("~", "~0").replacingAll("/", "~1"))
                    work.append((x, parents.count - 1, depth + 1))
                }
            default:
                continue
            }
        }
    }

    private static func tooDeep(_ node: Int, _ parents: [Int], _ keys: [String]) -> GrammarError {
        var parts: [String] = []
        var n = node
        while n > 0 { parts.append(keys[n]); n = parents[n] }
        let pointer = parts.reversed().map { "/" + $0 }.joined()
        return GrammarError(.limit, keyword: "depth", pointer: pointer, "schema nested deeper than \(maximumDepth) levels")
    }
}

extension JSONSchemaCompiler {
    /// Fails with a typed error naming the first location of `text` nested deeper than
    /// `maximumDepth`, before anything recursive reads it (the JSON parser recurses per level, with
    /// frames of a few KiB in debug builds). Malformed text is left to the parser's error.
    /// Returns the deepest nesting found.
    @discardableResult
    static func checkDepth(text: String) throws(GrammarError) -> Int {
        // Per open container: the key being read (objects) or the element index (arrays).
        var path: [(isObject: Bool, key: [UInt8], index: Int, expectKey: Bool)] = []
        var inString = false, escaped = false
        var current: [UInt8] = []
        var deepest = 0
        for c in text.utf8 {
            if inString {
                if escaped { escaped = false; current.append(c); continue }
                if c == 0x5C { escaped = true; current.append(c); continue }
                if c == 0x22 {
                    inString = false
                    if let last = path.last, last.isObject, last.expectKey {
                        path[path.count - 1].key = current
                        path[path.count - 1].expectKey = false
                    }
                } else {
                    current.append(c)
                }
                continue
            }
            switch c {
            case 0x22:
                inString = true
                current.removeAll(keepingCapacity: true)
            case 0x7B, 0x5B:
                if path.count >= maximumDepth {
                    let pointer = path.map { p in
                        "/" + (p.isObject ? String(decoding: p.key, as: UTF8.self).replacingAll("~", "~0").replacingAll("/", "~1") : String(p.index))
                    }.joined()
                    throw GrammarError(.limit, keyword: "depth", pointer: pointer, "schema nested deeper than \(maximumDepth) levels")
                }
                path.append((c == 0x7B, [], 0, c == 0x7B))
                deepest = max(deepest, path.count)
            case 0x7D, 0x5D:
                if !path.isEmpty { path.removeLast() }
            case 0x2C:
                if let last = path.last {
                    if last.isObject { path[path.count - 1].expectKey = true } else { path[path.count - 1].index += 1 }
                }
            default:
                continue
            }
        }
        return deepest
    }

    /// Stack the JSON parser needs per nesting level, with margin: it recurses once per level, and
    /// its frames measured about 170 bytes optimised, 2.9 KiB in debug and 4.6 KiB in debug with
    /// AddressSanitizer (so a deep schema on a 512 KiB thread overflowed there).
    static var parseBytesPerLevel: UInt {
        #if DEBUG
        return 6 << 10
        #else
        return 1 << 10
        #endif
    }
}
