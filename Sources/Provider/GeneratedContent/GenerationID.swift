import Foundation

/// Identifies one piece of generated content across the partial snapshots of a stream,
/// so UI can keep identity while content grows.
public struct GenerationID: Sendable, Hashable, Codable, CustomStringConvertible {
    let value: UUID

    /// A new unique id.
    public init() { value = UUID() }

    /// The id as text.
    public var description: String { value.uuidString }
}
