import LoomJSON
import Testing

/// Nesting is bounded by `maximumDepth` (512 by default): that many nested containers parse, one
/// more is a `JSONParseError` at the container that crosses the limit, and the parser stops there
/// instead of recursing further, whatever the input's depth.
@Suite struct JSONDepthLimitTests {
    static func nest(_ shape: String, _ depth: Int) -> String {
        switch shape {
        case "arrays": arrays(depth)
        case "objects": objects(depth)
        default: mixed(depth)
        }
    }
    static func arrays(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
    static func objects(_ depth: Int) -> String { String(repeating: #"{"a":"#, count: depth) + "0" + String(repeating: "}", count: depth) }
    static func mixed(_ depth: Int) -> String {
        let open = (0..<depth).map { $0 % 2 == 0 ? "[" : #"{"a":"# }.joined()
        let close = (0..<depth).reversed().map { $0 % 2 == 0 ? "]" : "}" }.joined()
        return open + "1" + close
    }

    @Test(arguments: ["arrays", "objects", "mixed"])
    func defaultLimitIsAcceptedAndOneMoreRejected(_ shape: String) throws {
        #expect(throws: Never.self) { try JSONValue(parsing: Self.nest(shape, 512)) }
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: Self.nest(shape, 513)) }
        #expect(error?.reason.contains("nesting") == true)
    }

    @Test func errorPointsAtTheContainerPastTheLimit() {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: Self.arrays(513)) }
        #expect(error?.offset == 512)
    }

    @Test(arguments: [0, 1, 2, 10, 100])
    func customLimit(_ limit: Int) throws {
        #expect(throws: Never.self) { try JSONValue(parsing: "1", maximumDepth: limit) }
        if limit > 0 { #expect(throws: Never.self) { try JSONValue(parsing: Self.arrays(limit), maximumDepth: limit) } }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Self.arrays(limit + 1), maximumDepth: limit) }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Self.objects(limit + 1), maximumDepth: limit) }
    }

    /// Width is not depth: long flat arrays and objects are not limited.
    @Test func wideContainersAreNotNested() throws {
        let wide = "[" + Array(repeating: "[]", count: 10_000).joined(separator: ",") + "]"
        #expect(try JSONValue(parsing: wide).arrayValue?.count == 10_000)
    }

    /// A million unclosed brackets fail at the limit rather than overflowing the stack.
    @Test(arguments: ["[", #"{"a":"#, "[{\"a\":"])
    func hostileDepthFailsAtTheLimit(_ opener: String) {
        let text = String(repeating: opener, count: 1_000_000)
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.reason.contains("nesting") == true)
    }
}
