import Foundation
import LoomJSON

extension GenerationSchema {
    /// Why a schema could not be derived from a `Decodable` type.
    public struct DerivationError: Error, LocalizedError, Sendable, CustomDebugStringConvertible {
        /// The type whose decoding could not be described as a schema.
        public var typeName: String
        /// What that type does that a schema cannot express.
        public var reason: String

        /// Builds an error.
        public init(typeName: String, reason: String) {
            self.typeName = typeName
            self.reason = reason
        }

        /// `"Cannot derive a generation schema for <type>: <reason>"`.
        public var debugDescription: String { "Cannot derive a generation schema for \(typeName): \(reason)" }
        /// The description, for `LocalizedError`.
        public var errorDescription: String? { debugDescription }
    }

    /// Derives a JSON Schema from a `Decodable` type by decoding it once with a recording
    /// decoder that notes every key and value type the type's `init(from:)` asks for.
    ///
    /// Supported: synthesized `Decodable` structs and classes (properties in declaration order;
    /// `Optional` properties become optional), `String`-backed `CaseIterable` enums, arrays,
    /// optionals, nested types, and the scalar types (`String`, `Bool`, integers, floating point,
    /// `Decimal`, `URL`, `UUID`, `Date` as seconds since 2001 — `JSONDecoder`'s default).
    /// Anything else — dictionaries, recursive types, a custom `init(from:)` that inspects keys
    /// or validates values — throws `DerivationError` naming the type, rather than producing a
    /// schema that would let the model generate something the type cannot decode.
    public init<T: Decodable>(deriving type: T.Type) throws {
        let recorder = SchemaRecorder()
        let (schema, _) = try recorder.derive(T.self)
        var document = schema
        if case .object(var object) = document, object["title"] == nil, object["type"] == .string("object") {
            var ordered = JSONObject([("title", .string(String(describing: T.self)))])
            for (k, v) in object { ordered[k] = v }
            object = ordered
            document = .object(object)
        }
        self.init(validated: document, name: String(describing: T.self))
    }
}

/// Marks `Dictionary` so derivation can refuse it (its `init(from:)` iterates `allKeys`,
/// which a recording decoder cannot supply, and would silently yield an empty object).
protocol _DictionaryDerivationMarker {}
extension Dictionary: _DictionaryDerivationMarker {}

final class SchemaRecorder {
    private var stack: [ObjectIdentifier] = []

    /// The schema for `T` and a placeholder value of `T` (needed to keep the enclosing
    /// type's `init(from:)` running).
    func derive<T: Decodable>(_ type: T.Type) throws -> (JSONValue, T) {
        if let scalar = Self.scalar(T.self) { return (scalar.schema, scalar.value as! T) }
        let name = String(describing: T.self)
        if T.self is any _DictionaryDerivationMarker.Type {
            throw GenerationSchema.DerivationError(typeName: name,
                reason: "dictionaries have keys chosen at run time; use a struct or an array of key/value structs")
        }
        if let enumType = T.self as? any (CaseIterable & RawRepresentable).Type,
           let cases = Self.stringCases(enumType), let first = cases.first {
            return (.object(JSONObject([("type", "string"), ("enum", .array(cases.map { .string($0.raw) }))])),
                    first.value as! T)
        }
        let id = ObjectIdentifier(T.self)
        if stack.contains(id) {
            throw GenerationSchema.DerivationError(typeName: name,
                reason: "the type contains itself; recursive types have no finite schema (conform to Generable and write one)")
        }
        stack.append(id)
        defer { stack.removeLast() }

        let decoder = RecordingDecoder(recorder: self, typeName: name)
        let value: T
        do {
            value = try T(from: decoder)
        } catch let error as GenerationSchema.DerivationError {
            throw error
        } catch {
            throw GenerationSchema.DerivationError(typeName: name,
                reason: "its init(from:) rejected placeholder values (\(error)); custom decoding cannot be described as a schema")
        }
        if let violation = decoder.state.violation {
            throw GenerationSchema.DerivationError(typeName: name, reason: violation)
        }
        guard let schema = decoder.state.schema else {
            throw GenerationSchema.DerivationError(typeName: name, reason: "its init(from:) reads nothing from the decoder")
        }
        var result = schema
        if case .object(var object) = result, object["type"] == .string("object"), object["title"] == nil {
            var ordered = JSONObject([("title", .string(name))])
            for (k, v) in object { ordered[k] = v }
            object = ordered
            result = .object(object)
        }
        return (result, value)
    }

    private static func stringCases<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> [(raw: String, value: Any)]? {
        var out: [(String, Any)] = []
        for c in E.allCases {
            guard let raw = c.rawValue as? String else { return nil }
            out.append((raw, c))
        }
        return out
    }

    private static func scalar(_ type: Any.Type) -> (schema: JSONValue, value: Any)? {
        func s(_ t: String) -> JSONValue { .object(JSONObject([("type", .string(t))])) }
        switch type {
        case is String.Type: return (s("string"), "")
        case is Bool.Type: return (s("boolean"), false)
        case is Int.Type: return (s("integer"), 0 as Int)
        case is Int8.Type: return (s("integer"), 0 as Int8)
        case is Int16.Type: return (s("integer"), 0 as Int16)
        case is Int32.Type: return (s("integer"), 0 as Int32)
        case is Int64.Type: return (s("integer"), 0 as Int64)
        case is UInt.Type: return (s("integer"), 0 as UInt)
        case is UInt8.Type: return (s("integer"), 0 as UInt8)
        case is UInt16.Type: return (s("integer"), 0 as UInt16)
        case is UInt32.Type: return (s("integer"), 0 as UInt32)
        case is UInt64.Type: return (s("integer"), 0 as UInt64)
        case is Double.Type: return (s("number"), 0.0 as Double)
        case is Float.Type: return (s("number"), 0 as Float)
        case is Decimal.Type: return (s("number"), Decimal(0))
        case is Date.Type: return (s("number"), Date(timeIntervalSinceReferenceDate: 0))
        case is URL.Type:
            return (.object(JSONObject([("type", "string"), ("format", "uri")])), URL(string: "about:blank")!)
        case is UUID.Type:
            return (.object(JSONObject([("type", "string"), ("format", "uuid")])), UUID())
        default: return nil
        }
    }
}

/// What one `init(from:)` asked of its decoder.
final class RecordingState {
    var schema: JSONValue?
    var violation: String?
    var containersRequested = 0

    func violate(_ reason: String) { if violation == nil { violation = reason } }
}

struct RecordingDecoder: Decoder {
    let recorder: SchemaRecorder
    let typeName: String
    let state = RecordingState()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(recorder: SchemaRecorder, typeName: String) {
        self.recorder = recorder
        self.typeName = typeName
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        state.containersRequested += 1
        if state.containersRequested > 1 { state.violate("its init(from:) asks for more than one container") }
        let object = ObjectRecording()
        state.schema = object.schema
        return KeyedDecodingContainer(RecordingKeyedContainer<Key>(recorder: recorder, state: state, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        state.containersRequested += 1
        if state.containersRequested > 1 { state.violate("its init(from:) asks for more than one container") }
        return RecordingUnkeyedContainer(recorder: recorder, state: state)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        state.containersRequested += 1
        if state.containersRequested > 1 { state.violate("its init(from:) asks for more than one container") }
        return RecordingSingleValueContainer(recorder: recorder, state: state)
    }
}

/// The properties of one object schema, filled in as keys are decoded.
final class ObjectRecording {
    var properties = JSONObject()
    var required: [String] = []

    var schema: JSONValue {
        .object(JSONObject([
            ("type", "object"), ("properties", .object(properties)),
            ("required", .array(required.map { .string($0) })), ("additionalProperties", false),
        ]))
    }
}

struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: SchemaRecorder
    let state: RecordingState
    let object: ObjectRecording
    var codingPath: [any CodingKey] = []

    init(recorder: SchemaRecorder, state: RecordingState, object: ObjectRecording) {
        self.recorder = recorder
        self.state = state
        self.object = object
    }

    var allKeys: [Key] {
        state.violate("its init(from:) enumerates the keys present (custom decoding, or an enum with associated values)")
        return []
    }

    func contains(_ key: Key) -> Bool {
        state.violate("its init(from:) tests for key '\(key.stringValue)' (custom decoding)")
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        state.violate("its init(from:) tests key '\(key.stringValue)' for null (custom decoding)")
        return false
    }

    private func record<T: Decodable>(_ type: T.Type, _ key: Key, optional: Bool) throws -> T {
        if object.properties[key.stringValue] != nil {
            state.violate("its init(from:) reads key '\(key.stringValue)' twice (custom decoding)")
        }
        let (schema, value) = try recorder.derive(T.self)
        object.properties[key.stringValue] = schema
        if !optional { object.required.append(key.stringValue) }
        state.schema = object.schema
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try record(T.self, key, optional: false) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try record(type, key, optional: false) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try record(type, key, optional: false) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try record(type, key, optional: false) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try record(type, key, optional: false) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try record(type, key, optional: false) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try record(type, key, optional: false) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try record(type, key, optional: false) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try record(type, key, optional: false) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try record(type, key, optional: false) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try record(type, key, optional: false) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try record(type, key, optional: false) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try record(type, key, optional: false) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try record(type, key, optional: false) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try record(type, key, optional: false) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try record(T.self, key, optional: true) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try record(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try record(type, key, optional: true) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        state.violate("its init(from:) opens a nested container for '\(key.stringValue)' (custom decoding)")
        return KeyedDecodingContainer(RecordingKeyedContainer<NestedKey>(recorder: recorder, state: state, object: ObjectRecording()))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        state.violate("its init(from:) opens a nested container for '\(key.stringValue)' (custom decoding)")
        return RecordingUnkeyedContainer(recorder: recorder, state: RecordingState())
    }

    func superDecoder() throws -> any Decoder {
        state.violate("its init(from:) decodes a superclass (custom decoding)")
        return RecordingDecoder(recorder: recorder, typeName: "super")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        state.violate("its init(from:) decodes a superclass (custom decoding)")
        return RecordingDecoder(recorder: recorder, typeName: "super")
    }
}

/// Records an array: reports one element, then the end.
struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
    let recorder: SchemaRecorder
    let state: RecordingState
    var codingPath: [any CodingKey] = []
    var count: Int? { nil }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex > 0 }

    init(recorder: SchemaRecorder, state: RecordingState) {
        self.recorder = recorder
        self.state = state
        state.schema = .object(JSONObject([("type", "array")]))
    }

    mutating func decodeNil() throws -> Bool {
        state.violate("its init(from:) tests array elements for null (custom decoding)")
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if currentIndex > 0 { state.violate("its init(from:) reads past the end of an array (custom decoding)") }
        currentIndex += 1
        let (schema, value) = try recorder.derive(T.self)
        state.schema = .object(JSONObject([("type", "array"), ("items", schema)]))
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        state.violate("its init(from:) opens a nested container in an array (custom decoding)")
        return KeyedDecodingContainer(RecordingKeyedContainer<NestedKey>(recorder: recorder, state: state, object: ObjectRecording()))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        state.violate("its init(from:) opens a nested container in an array (custom decoding)")
        return RecordingUnkeyedContainer(recorder: recorder, state: RecordingState())
    }

    mutating func superDecoder() throws -> any Decoder {
        state.violate("its init(from:) decodes a superclass (custom decoding)")
        return RecordingDecoder(recorder: recorder, typeName: "super")
    }
}

/// Records a value decoded as a single value: a wrapper type, or `Optional`'s null test.
struct RecordingSingleValueContainer: SingleValueDecodingContainer {
    let recorder: SchemaRecorder
    let state: RecordingState
    var codingPath: [any CodingKey] = []
    private let nullable = NullableFlag()

    final class NullableFlag { var value = false }

    init(recorder: SchemaRecorder, state: RecordingState) {
        self.recorder = recorder
        self.state = state
    }

    func decodeNil() -> Bool {
        // `Optional.init(from:)` asks this first; the value is then decoded as the wrapped type.
        nullable.value = true
        return false
    }

    private func record<T: Decodable>(_ type: T.Type) throws -> T {
        if state.schema != nil { state.violate("its init(from:) decodes more than one value (custom decoding)") }
        let (schema, value) = try recorder.derive(T.self)
        if nullable.value {
            state.schema = .object(JSONObject([("anyOf", .array([schema, .object(JSONObject([("type", "null")]))]))]))
        } else {
            state.schema = schema
        }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try record(T.self) }
    func decode(_ type: Bool.Type) throws -> Bool { try record(type) }
    func decode(_ type: String.Type) throws -> String { try record(type) }
    func decode(_ type: Double.Type) throws -> Double { try record(type) }
    func decode(_ type: Float.Type) throws -> Float { try record(type) }
    func decode(_ type: Int.Type) throws -> Int { try record(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try record(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try record(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try record(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try record(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try record(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try record(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try record(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try record(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try record(type) }
}
