/// Why a schema, grammar or regex could not be compiled into an exact grammar.
///
/// Loom never silently loosens a constraint: anything it cannot enforce exactly is reported with the
/// keyword that caused it and the JSON pointer of the schema location (or the byte offset in a GBNF
/// or regex source), unless the caller opted into lenient mode.
public struct GrammarError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem this is.
    public enum Kind: String, Sendable {
        /// The input is not well-formed (bad JSON, bad GBNF, bad regex syntax).
        case syntax
        /// A keyword or construct that Loom cannot enforce exactly.
        case unsupported
        /// A `$ref` that does not resolve.
        case unresolvedReference
        /// The grammar is too large or recursive in a way a matcher cannot run (left recursion).
        case limit
    }
    /// The kind of failure.
    public let kind: Kind
    /// The schema keyword (`not`, `oneOf`, `pattern`, …) or grammar construct at fault.
    public let keyword: String
    /// JSON pointer of the schema location (`/properties/a/not`), or a position for GBNF/regex.
    public let pointer: String
    /// A human-readable explanation.
    public let reason: String

    /// Creates an error.
    public init(_ kind: Kind, keyword: String, pointer: String, _ reason: String) {
        self.kind = kind
        self.keyword = keyword
        self.pointer = pointer
        self.reason = reason
    }

    public var description: String {
        "\(kind.rawValue) error at \(pointer.isEmpty ? "#" : pointer) (\(keyword)): \(reason)"
    }
}
