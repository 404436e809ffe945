// An object key compared the way RFC 8259 §8.3 says implementations compare member names: by
// code units, so that two names a parser keeps apart (and a serializer writes apart) are never
// merged by Swift's canonical-equivalence `String ==`.

/// A member name that is equal to another only when their UTF-8 bytes are.
struct JSONMemberName: Hashable, Sendable {
    let name: String

    init(_ name: String) { self.name = name }

    static func == (a: JSONMemberName, b: JSONMemberName) -> Bool {
        a.name.utf8.elementsEqual(b.name.utf8)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(name.utf8.count)
        for byte in name.utf8 { hasher.combine(byte) }
    }
}
