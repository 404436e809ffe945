/// Reads structured choices off the front of a fuzz input; past the end every read yields 0,
/// so short inputs still take a deterministic path.
public struct FuzzInput {
    /// The whole input.
    public let bytes: [UInt8]
    /// Index of the next unread byte.
    public private(set) var position = 0

    /// Wraps an input.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// True when every byte has been read.
    public var isAtEnd: Bool { position >= bytes.count }

    /// The next byte (0 past the end).
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next two bytes as a little-endian number.
    public mutating func uint16() -> Int { Int(byte()) | Int(byte()) << 8 }

    /// A value in `0..<bound` (bound > 0) from the next two bytes.
    public mutating func index(_ bound: Int) -> Int { bound <= 256 ? Int(byte()) % bound : uint16() % bound }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}
