/// The value types a GGUF metadata entry can hold (ids as in the GGUF specification).
public enum GGUFValueType: UInt32, Sendable, CaseIterable {
    case uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5, float32 = 6
    case bool = 7, string = 8, array = 9, uint64 = 10, int64 = 11, float64 = 12

    /// Size in bytes of a scalar of this type; nil for strings and arrays.
    var scalarSize: Int? {
        switch self {
        case .uint8, .int8, .bool: return 1
        case .uint16, .int16: return 2
        case .uint32, .int32, .float32: return 4
        case .uint64, .int64, .float64: return 8
        case .string, .array: return nil
        }
    }

    /// The specification's name for the type, used in messages and `loom inspect`.
    public var name: String {
        switch self {
        case .uint8: return "u8"
        case .int8: return "i8"
        case .uint16: return "u16"
        case .int16: return "i16"
        case .uint32: return "u32"
        case .int32: return "i32"
        case .float32: return "f32"
        case .bool: return "bool"
        case .string: return "string"
        case .array: return "array"
        case .uint64: return "u64"
        case .int64: return "i64"
        case .float64: return "f64"
        }
    }
}

/// One metadata value read from a GGUF file.
public enum GGUFValue: Sendable, Equatable {
    case uint8(UInt8), int8(Int8), uint16(UInt16), int16(Int16)
    case uint32(UInt32), int32(Int32), uint64(UInt64), int64(Int64)
    case float32(Float), float64(Double)
    case bool(Bool)
    case string(String)
    /// An array: its declared element type and the elements (which may themselves be arrays).
    indirect case array(GGUFValueType, [GGUFValue])

    /// The value's type.
    public var type: GGUFValueType {
        switch self {
        case .uint8: return .uint8
        case .int8: return .int8
        case .uint16: return .uint16
        case .int16: return .int16
        case .uint32: return .uint32
        case .int32: return .int32
        case .uint64: return .uint64
        case .int64: return .int64
        case .float32: return .float32
        case .float64: return .float64
        case .bool: return .bool
        case .string: return .string
        case .array: return .array
        }
    }

    /// Any integer value as `Int` (nil for non-integers or values that do not fit).
    public var intValue: Int? {
        switch self {
        case .uint8(let v): return Int(v)
        case .int8(let v): return Int(v)
        case .uint16(let v): return Int(v)
        case .int16(let v): return Int(v)
        case .uint32(let v): return Int(v)
        case .int32(let v): return Int(v)
        case .uint64(let v): return Int(exactly: v)
        case .int64(let v): return Int(v)
        default: return nil
        }
    }

    /// Any numeric value as `Double`.
    public var doubleValue: Double? {
        switch self {
        case .float32(let v): return Double(v)
        case .float64(let v): return v
        default: return intValue.map(Double.init)
        }
    }

    /// The value if it is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The value if it is a boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements if the value is an array.
    public var arrayValue: [GGUFValue]? {
        if case .array(_, let items) = self { return items }
        return nil
    }
}
