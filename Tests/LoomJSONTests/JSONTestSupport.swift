import LoomJSON

/// Parses UTF-8 bytes, for inputs a Swift `String` cannot hold (invalid UTF-8, lone bytes).
func parse(bytes: [UInt8], maximumDepth: Int = 512) throws(JSONParseError) -> JSONValue {
    try JSONValue(parsing: bytes, maximumDepth: maximumDepth)
}

/// The Unicode scalars of a string, compared exactly: Swift's `String ==` treats canonically
/// equivalent strings as equal, while JSON strings are sequences of code points (RFC 8259 §8.3).
func scalars(_ s: String) -> [UInt32] { s.unicodeScalars.map(\.value) }

/// The literal of a number value, nil for any other value.
func numberLiteral(_ value: JSONValue) -> String? {
    if case .number(let n) = value { return n.literal }
    return nil
}
