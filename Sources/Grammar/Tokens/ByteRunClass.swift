/// Coarse classes of the bytes a JSON string holds as themselves, for skipping whole trie subtrees.
///
/// Inside a run of a pattern — a URI's path, an e-mail's local part, a word of `\S+` — the
/// pattern's state loops on every byte of some classes, and a trie subtree made only of such bytes
/// keeps the string exactly where it is: every token in it is taken, and the walk can set them from
/// the subtree's run of `TokenTrie.tokens` instead of visiting each node. Printable ASCII other
/// than `"` and `\` is split into twelve classes along the lines patterns draw (letters, digits,
/// the separators URIs and identifiers use); everything else — quotes, escapes, control bytes and
/// UTF-8, whose validity the walk must check — is one class no state loops on.
enum ByteRunClass {
    /// The classes a state can loop on (bits 0–11); bit 12 is every other byte.
    static let runnable: UInt16 = 0x0FFF
    private static let other: UInt16 = 1 << 12

    /// Each byte's class as a single bit.
    static let bits: [UInt16] = (0..<256).map { b in
        switch UInt8(b) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return 1 << 0
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return 1 << 1
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 1 << 2
        case UInt8(ascii: "-"): return 1 << 3
        case UInt8(ascii: "_"): return 1 << 4
        case UInt8(ascii: "."): return 1 << 5
        case UInt8(ascii: "/"): return 1 << 6
        case UInt8(ascii: ":"): return 1 << 7
        case UInt8(ascii: " "): return 1 << 8
        case UInt8(ascii: "@"): return 1 << 9
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return 1 << 10
        case 0x21...0x7E where b != 0x22 && b != 0x5C: return 1 << 11
        default: return other
        }
    }

    @inline(__always) static func bit(_ b: UInt8) -> UInt16 { bits[Int(b)] }

    /// Per state of `dfa`, the classes on every byte of which the state goes to itself.
    static func selfLoops(_ dfa: ByteDFA) -> [UInt16] {
        (0..<dfa.stateCount).map { q in
            var all = runnable
            var some: UInt16 = 0
            for b in 0..<256 {
                let c = bits[b]
                guard c & runnable != 0 else { continue }
                if dfa.trans[q * 256 + b] == Int32(q) { some |= c } else { all &= ~c }
            }
            return all & some
        }
    }
}
