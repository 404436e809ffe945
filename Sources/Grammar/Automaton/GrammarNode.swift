/// 256 bits: which bytes a byte-class terminal accepts.
struct ByteSet: Sendable, Hashable {
    var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0

    init() {}
    init(_ bytes: [UInt8]) { for b in bytes { insert(b) } }
    init(_ r: ClosedRange<UInt8>) { for b in r { insert(b) } }

    @inline(__always) func contains(_ b: UInt8) -> Bool {
        let w: UInt64
        switch b >> 6 {
        case 0: w = w0
        case 1: w = w1
        case 2: w = w2
        default: w = w3
        }
        return w >> UInt64(b & 63) & 1 == 1
    }

    mutating func insert(_ b: UInt8) {
        let bit: UInt64 = 1 << UInt64(b & 63)
        switch b >> 6 {
        case 0: w0 |= bit
        case 1: w1 |= bit
        case 2: w2 |= bit
        default: w3 |= bit
        }
    }

    /// JSON insignificant whitespace.
    static let jsonWhitespace = ByteSet([0x20, 0x09, 0x0A, 0x0D])
}

/// A JSON string terminal: the opening quote, the content as written (escapes and raw UTF-8), and
/// the closing quote. Constraints apply to the decoded value.
struct StringSpec: Sendable, Hashable {
    /// Minimum number of code points.
    var minLength = 0
    /// Maximum number of code points, or -1.
    var maxLength = -1
    /// DFAs (indexes into `Grammar.dfas`) that the decoded UTF-8 bytes must all end accepting.
    var dfas: [Int32] = []

    /// Whether the frame decodes `\u` escapes into code points: needed to feed patterns, and to
    /// count a surrogate pair (`\ud83d\ude00`) as the one code point it is toward the length
    /// bounds. A frame that decodes admits an escaped surrogate only as half of a pair.
    var tracksValue: Bool { !dfas.isEmpty || maxLength >= 0 || minLength > 0 }
}

/// A JSON number terminal with constraints checked exactly on its literal text.
struct NumberSpec: Sendable, Hashable {
    /// How integers are recognised.
    enum IntegerMode: Sendable, Hashable {
        /// Any JSON number.
        case any
        /// Digits only (draft-04 `integer`, and generation).
        case digitsOnly
        /// Any literal whose value is integral: `1.0` is an integer from draft-06 on.
        case integralValue
        /// Only numbers whose value is not an integer (the complement of `integer` within `number`).
        case nonIntegral
    }
    var integer: IntegerMode = .any
    var minimum: ExactDecimal?
    var minimumExclusive = false
    var maximum: ExactDecimal?
    var maximumExclusive = false
    var multipleOf: [ExactDecimal] = []
    /// Values the number must not equal (`not` over `const`/`enum`).
    var excluded: [ExactDecimal] = []
    /// Values the number must equal one of (numeric `enum` compared by value); nil for no restriction.
    var allowed: [ExactDecimal]?

    /// True when the literal must be remembered to decide acceptance.
    var needsLiteral: Bool {
        integer == .nonIntegral || minimum != nil || maximum != nil || !multipleOf.isEmpty || !excluded.isEmpty || allowed != nil
    }
}

/// A JSON object: members in any order (each declared property at most once), ws as configured.
struct ObjectSpec: Sendable, Hashable {
    /// Member nodes (`"key" ws : ws value`) for declared properties, in schema order.
    var members: [Int32] = []
    /// Indexes of required declared members.
    var required: [Int] = []
    /// Member nodes that may repeat with distinct keys (pattern and additional properties).
    var extraMembers: [Int32] = []
    var minProperties = 0
    /// -1 for unbounded.
    var maxProperties = -1
    /// `dependentRequired`: if member `k` is present then all of `v` must be.
    var dependencies: [[Int]] = []
    var dependencyKeys: [Int] = []
    /// `not: {required: [...]}`: these member sets must not all be present.
    var forbiddenTogether: [[Int]] = []
    /// Members the object must have at least once each (complements of `properties`,
    /// `patternProperties` or `additionalProperties`: some member breaks them), counted in one
    /// more seen bit each, after the declared members' bits. A member may witness several at
    /// once; the object closes when every one has a witness.
    var witnessCount = 0
    var needsWitness: Bool { witnessCount > 0 }
    /// Declared members that are witnesses too: the member index, the node for the member with a
    /// value that also satisfies the witnesses it claims, and those claims (bit j: witness j).
    var witnessDeclared: [Int] = []
    var witnessDeclaredNodes: [Int32] = []
    var witnessDeclaredClaims: [Int32] = []
    /// Extra members that are witnesses, and the witnesses each claims.
    var witnessExtraMembers: [Int32] = []
    var witnessExtraClaims: [Int32] = []
    /// Generation preference: declared members only in schema order (extra members after them).
    var schemaOrder = false
    /// Whether JSON whitespace is allowed between the object's tokens.
    var whitespace = true
}

/// A JSON array: positional items, then repeated items, counted.
struct ArraySpec: Sendable, Hashable {
    var prefix: [Int32] = []
    /// Node for items after the prefix, or nil when no more are allowed.
    var items: Int32?
    var minItems = 0
    /// -1 for unbounded.
    var maxItems = -1
    /// `uniqueItems` over a finite domain: each item is one of these nodes, each used at most once.
    var uniqueChoices: [Int32]?
    /// `contains`: nodes for items that match the `contains` schema, per prefix position and for the
    /// rest (`prefix`/`items` then hold the items that do not match). Matches are counted.
    var containsPrefix: [Int32] = []
    var containsItems: Int32?
    var hasContains = false
    var minContains = 0
    /// -1 for unbounded.
    var maxContains = -1
    /// Several `contains` schemas, each to be matched by at least one item (no counts): an item
    /// may claim any set T of them by matching all of T, and the array closes once every one was
    /// claimed (bit i of the state's `contains` slot). Per prefix position and for the rest, the
    /// node for each nonempty T, at index T - 1 (-1 when T's conjunction is empty); the plain
    /// `prefix`/`items` are the items that claim nothing.
    var coverCount = 0
    var coverPrefix: [[Int32]] = []
    var coverItems: [Int32]?
    var whitespace = true
}

/// One node of a compiled grammar. Terminals consume bytes; structural nodes call children.
enum GrammarNode: Sendable, Hashable {
    /// The empty language.
    case fail
    /// Exactly these bytes.
    case literal([UInt8])
    /// One byte from the set.
    case bytes(ByteSet)
    /// A byte string accepted by `Grammar.dfas[i]` (full match).
    case dfa(Int32)
    case seq([Int32])
    case alt([Int32])
    /// `min...max` repetitions; `max < 0` is unbounded.
    case rep(Int32, min: Int32, max: Int32)
    case string(StringSpec)
    case number(NumberSpec)
    case object(ObjectSpec)
    case array(ArraySpec)
}
