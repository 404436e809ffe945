import Foundation
import LoomJSON

/// Bridges `JSONValue` to `Codable` so schemas and generated content can travel through any
/// `Encoder`/`Decoder`. The value survives, but member order is up to the coder (Foundation's
/// `JSONEncoder` on Linux does not keep insertion order), which is why the lossless paths
/// (`GenerationSchema(jsonSchema:)`/`jsonString`, `GeneratedContent(json:)`/`jsonString`, and
/// transcript persistence) carry JSON text.
struct JSONValueCoding: Codable, Sendable {
    var value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var object = JSONObject()
            for key in keyed.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                object[key.stringValue] = try keyed.decode(JSONValueCoding.self, forKey: key).value
            }
            value = .object(object)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(JSONValueCoding.self).value) }
            value = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let b = try? single.decode(Bool.self) {
            value = .bool(b)
        } else if let i = try? single.decode(Int.self) {
            value = .number(JSONNumber(i))
        } else if let d = try? single.decode(Double.self) {
            value = .number(JSONNumber(d))
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let n):
            var c = encoder.singleValueContainer()
            if let i = Int(n.literal) { try c.encode(i) } else if let d = Decimal(string: n.literal), n.literal.count > 17 {
                try c.encode(d)
            } else { try c.encode(n.doubleValue) }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(JSONValueCoding(item)) }
        case .object(let object):
            var c = encoder.container(keyedBy: Key.self)
            for (key, member) in object { try c.encode(JSONValueCoding(member), forKey: Key(stringValue: key)) }
        }
    }
}
