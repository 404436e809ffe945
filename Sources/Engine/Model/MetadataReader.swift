/// Typed access to a GGUF file's metadata for deriving a model: every getter names the key it
/// failed on, so a bad file produces a precise `ModelLoadError` rather than a default.
struct MetadataReader {
    let file: GGUFFile

    /// An integer key, or nil when absent. Any GGUF integer type is accepted.
    func int(_ key: String) throws(ModelLoadError) -> Int? {
        guard let value = file.metadata[key] else { return nil }
        guard let v = value.intValue else {
            throw .wrongValueType(key: key, expected: "integer", found: value.type.name)
        }
        return v
    }

    /// A required integer key.
    func requiredInt(_ key: String) throws(ModelLoadError) -> Int {
        guard let v = try int(key) else { throw .missingKey(key) }
        return v
    }

    /// A numeric key (float or integer), or nil when absent.
    func double(_ key: String) throws(ModelLoadError) -> Double? {
        guard let value = file.metadata[key] else { return nil }
        guard let v = value.doubleValue else {
            throw .wrongValueType(key: key, expected: "number", found: value.type.name)
        }
        return v
    }

    /// A string key, or nil when absent.
    func string(_ key: String) throws(ModelLoadError) -> String? {
        guard let value = file.metadata[key] else { return nil }
        guard let v = value.stringValue else {
            throw .wrongValueType(key: key, expected: "string", found: value.type.name)
        }
        return v
    }

    /// A token id key. GGUF writers use -1 (or its u32 pattern) for "no such token".
    func tokenID(_ key: String) throws(ModelLoadError) -> Int? {
        guard let value = file.metadata[key] else { return nil }
        switch value {
        case .uint32(UInt32.max), .int32(-1), .uint64(UInt64.max), .int64(-1): return nil
        default:
            guard let v = value.intValue else {
                throw .wrongValueType(key: key, expected: "integer", found: value.type.name)
            }
            return v
        }
    }

    /// The number of elements of an array key, or nil when absent.
    func arrayCount(_ key: String) -> Int? {
        file.metadata[key]?.arrayValue?.count
    }
}
