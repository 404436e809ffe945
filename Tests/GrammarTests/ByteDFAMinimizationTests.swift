import Testing
@testable import Grammar

/// DFAs are minimised where they are built: the result must accept exactly the same strings and
/// have no two equivalent states (checked against a naive refinement written here).
@Suite struct ByteDFAMinimizationTests {
    /// The number of Myhill–Nerode classes of `dfa`'s states, by refining "accepting or not" on
    /// every byte until nothing splits (quadratic, independent of `minimized()`).
    static func classCount(_ dfa: ByteDFA) -> Int {
        let n = dfa.stateCount
        var cls = (0..<n).map { dfa.accepting[$0] ? 1 : 0 }
        var count = Set(cls).count
        while true {
            var ids: [[Int]: Int] = [:]
            let next = (0..<n).map { q -> Int in
                let sig = [cls[q]] + (0..<256).map { b -> Int in
                    let t = dfa.next(Int32(q), UInt8(b))
                    return t < 0 ? -1 : cls[Int(t)]
                }
                if let id = ids[sig] { return id }
                ids[sig] = ids.count
                return ids.count - 1
            }
            if ids.count == count { return count }
            count = ids.count
            cls = next
        }
    }

    /// Every string over `alphabet` up to `length` bytes.
    static func strings(_ alphabet: [UInt8], upTo length: Int) -> [[UInt8]] {
        var all: [[UInt8]] = [[]]
        var layer: [[UInt8]] = [[]]
        for _ in 0..<length {
            layer = layer.flatMap { s in alphabet.map { s + [$0] } }
            all += layer
        }
        return all
    }

    /// "An even number of a's" over {a, b} with every state written twice: four states, two classes.
    @Test func mergesDuplicateStates() {
        let a = Int(UInt8(ascii: "a")), b = Int(UInt8(ascii: "b"))
        var t = [Int32](repeating: -1, count: 4 * 256)
        // States 0 and 2 are "even", 1 and 3 "odd"; the copies hand over to each other.
        for (q, onA, onB) in [(0, 1, 2), (1, 2, 3), (2, 3, 0), (3, 0, 1)] {
            t[q * 256 + a] = Int32(onA)
            t[q * 256 + b] = Int32(onB)
        }
        let raw = ByteDFA(rawTrans: t, rawAccepting: [true, false, true, false])
        let min = raw.minimized()
        #expect(raw.stateCount == 4)
        #expect(min.stateCount == 2)
        for s in Self.strings(Array("abc".utf8), upTo: 8) {
            #expect(raw.matches(s) == min.matches(s), "languages differ on \(s)")
        }
    }

    @Test(arguments: ["(a|b)*abb", "^(?:ab|a)(?:b|bb)*c?$", "x{2,5}(y|yz)*", "^[a-c]+@[a-c]+\\.(ab|abc|b)$"])
    func regexDFAsAreMinimal(_ pattern: String) throws {
        let dfa = try RegexCompiler.compile(pattern, mode: .fullMatch)
        #expect(Self.classCount(dfa) == dfa.stateCount, "\(pattern): equivalent states left")
        let again = dfa.minimized()
        #expect(again.stateCount == dfa.stateCount, "minimising twice changed the DFA")
    }

    /// The classic example: `(a|b)*abb` has four states and takes exactly the a/b strings ending in abb.
    @Test func classicExample() throws {
        let dfa = try RegexCompiler.compile("(a|b)*abb", mode: .fullMatch)
        #expect(dfa.stateCount == 4)
        for w in Self.strings(Array("abc".utf8), upTo: 7) {
            let expected = !w.contains(UInt8(ascii: "c")) && w.count >= 3 && Array(w.suffix(3)) == Array("abb".utf8)
            #expect(dfa.matches(w) == expected, "\(String(decoding: w, as: UTF8.self))")
        }
    }

    /// A format's DFA (URIs: thousands of subset states) comes out minimal.
    @Test func formatDFAIsMinimal() throws {
        let regex = try #require(JSONSchemaFormats.regex("uri"))
        let dfa = try RegexCompiler.compile(regex, mode: .fullMatch)
        #expect(Self.classCount(dfa) == dfa.stateCount)
        #expect(dfa.stateCount < 400)
        #expect(dfa.matches(Array("http://example.com/a?b#c".utf8)))
        #expect(!dfa.matches(Array("http://exa mple.com".utf8)))
    }
}
