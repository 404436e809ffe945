import CTensor
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One tensor's entry in a GGUF file's tensor table.
public struct GGUFTensorInfo: Sendable, Equatable {
    /// The tensor's name, e.g. `blk.0.attn_q.weight`.
    public let name: String
    /// Dimensions in GGUF order: `shape[0]` (ggml's ne0) is the contiguous axis.
    public let shape: [Int]
    /// The ggml type id (see `loom_type` in CTensor).
    public let typeID: UInt32
    /// Offset of the data relative to the start of the tensor-data section.
    public let offset: Int
    /// Bytes of data.
    public let byteCount: Int

    /// ggml's name for the type (`Q4_K`, `F32`, …).
    public var typeName: String { loom_type_name(Int32(typeID)).map { String(cString: $0) } ?? "type\(typeID)" }
    /// Total elements.
    public var elementCount: Int { shape.reduce(1, *) }
    /// Rows when viewed as a matrix of `shape[0]`-long rows.
    public var rowCount: Int { shape.dropFirst().reduce(1, *) }
}

/// A GGUF file mapped read-only into memory, with its metadata and tensor table parsed and
/// validated. Tensor data is never copied: `data(for:)` points into the mapping.
///
/// The mapping lives as long as this object; it is immutable after `init`, which is why the
/// class is `@unchecked Sendable`.
public final class GGUFFile: @unchecked Sendable {
    /// Where the file was read from.
    public let path: String
    /// The GGUF version (2 or 3).
    public let version: UInt32
    /// Metadata keys in file order.
    public let metadataKeys: [String]
    /// Metadata values by key.
    public let metadata: [String: GGUFValue]
    /// Tensors in file order.
    public let tensors: [GGUFTensorInfo]
    /// Data alignment (`general.alignment`, default 32).
    public let alignment: Int
    /// File offset of the tensor-data section.
    public let dataOffset: Int
    /// Size of the file in bytes.
    public let fileSize: Int

    /// The whole file, read-only (internal: extensions read it for content fingerprints).
    let mapping: UnsafeRawPointer
    /// True when `mapping` maps a file (its pages can be dropped and read again), false for an
    /// image held in anonymous memory (dropping its pages would zero them).
    let isFileBacked: Bool
    private let tensorIndex: [String: Int]

    /// Arrays may nest, but real files nest at most once; this bounds recursion on hostile input.
    static let maximumNesting = 8

    /// Maps and parses the file at `path`.
    public convenience init(path: String) throws(ModelLoadError) {
        let fd = open(path, O_RDONLY)
        if fd < 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) != 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        if (st.st_mode & S_IFMT) != S_IFREG { throw .unreadable(path: path, reason: "not a regular file") }
        let size = Int(st.st_size)
        if size == 0 { throw .truncated(offset: 0, needed: 4, what: "magic") }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw .unreadable(path: path, reason: "mmap failed: \(String(cString: strerror(errno)))")
        }
        try self.init(name: path, mapping: p, size: size, fileBacked: true)
    }

    /// Parses a GGUF image held in memory (copied into a private anonymous mapping), for
    /// tests, fuzzing and files that arrive over other channels than the file system.
    public convenience init(bytes: [UInt8], name: String = "<memory>") throws(ModelLoadError) {
        if bytes.isEmpty { throw .truncated(offset: 0, needed: 4, what: "magic") }
        guard let p = mmap(nil, bytes.count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              p != MAP_FAILED else {
            throw .unreadable(path: name, reason: "cannot allocate \(bytes.count) bytes")
        }
        bytes.withUnsafeBytes { p.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        try self.init(name: name, mapping: p, size: bytes.count, fileBacked: false)
    }

    /// Takes ownership of a mapping: parses it, and unmaps it if parsing fails.
    private init(name: String, mapping p: UnsafeMutableRawPointer, size: Int, fileBacked: Bool) throws(ModelLoadError) {
        let parsed: Parsed
        do {
            parsed = try GGUFFile.parse(base: UnsafeRawPointer(p), size: size)
        } catch {
            munmap(p, size)
            throw error
        }
        path = name
        fileSize = size
        version = parsed.version
        metadataKeys = parsed.keys
        metadata = parsed.metadata
        tensors = parsed.tensors
        alignment = parsed.alignment
        dataOffset = parsed.dataOffset
        mapping = UnsafeRawPointer(p)
        isFileBacked = fileBacked
        var index: [String: Int] = [:]
        for (i, t) in tensors.enumerated() { index[t.name] = i }
        tensorIndex = index
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: mapping), fileSize)
    }

    /// The tensor named `name`, if present.
    public func tensor(named name: String) -> GGUFTensorInfo? {
        tensorIndex[name].map { tensors[$0] }
    }

    /// A pointer to a tensor's data inside the mapping (valid while this object lives).
    public func data(for tensor: GGUFTensorInfo) -> UnsafeRawPointer {
        mapping + dataOffset + tensor.offset
    }

    // MARK: - Parsing

    private struct Parsed {
        var version: UInt32 = 0
        var keys: [String] = []
        var metadata: [String: GGUFValue] = [:]
        var tensors: [GGUFTensorInfo] = []
        var alignment = 32
        var dataOffset = 0
    }

    private static func parse(base: UnsafeRawPointer, size: Int) throws(ModelLoadError) -> Parsed {
        var c = GGUFCursor(base: base, size: size)
        var out = Parsed()
        let magic = try c.read(UInt32.self, "magic")
        if magic != 0x4655_4747 { throw .badMagic(found: magic) }  // "GGUF" little-endian
        out.version = try c.read(UInt32.self, "version")
        guard out.version == 2 || out.version == 3 else { throw .unsupportedVersion(out.version) }
        // A tensor info takes at least 8 (name length) + 4 (n_dims) + 4 (type) + 8 (offset) bytes;
        // a key/value pair at least 8 (key length) + 4 (type) + 1 byte.
        let tensorCount = try c.readCount("tensor count", minElementSize: 24, wide: true)
        let kvCount = try c.readCount("metadata count", minElementSize: 13, wide: true)

        for _ in 0..<kvCount {
            let key = try c.readString("metadata key", wide: true)
            let typeAt = c.offset
            let rawType = try c.read(UInt32.self, "value type of '\(key)'")
            guard let type = GGUFValueType(rawValue: rawType) else {
                throw .unknownValueType(offset: typeAt, key: key, type: rawType)
            }
            let value = try readValue(&c, type: type, key: key, depth: 0)
            if out.metadata[key] != nil { throw .duplicateKey(key) }
            out.metadata[key] = value
            out.keys.append(key)
        }

        if let a = out.metadata["general.alignment"] {
            guard case .uint32(let v) = a else {
                throw .wrongValueType(key: "general.alignment", expected: "u32", found: a.type.name)
            }
            guard v > 0, v % 8 == 0, v <= 1 << 20 else {
                throw .inconsistentHyperparameters("general.alignment \(v) is not a positive multiple of 8")
            }
            out.alignment = Int(v)
        }

        var seen = Set<String>()
        var infos: [(name: String, shape: [UInt64], type: UInt32, offset: UInt64)] = []
        infos.reserveCapacity(tensorCount)
        for _ in 0..<tensorCount {
            let name = try c.readString("tensor name", wide: true)
            let dimsAt = c.offset
            let nDims = try c.read(UInt32.self, "dimension count of '\(name)'")
            guard nDims >= 1, nDims <= 4 else {
                throw .implausibleSize(offset: dimsAt, what: "dimension count of '\(name)'", value: UInt64(nDims))
            }
            var shape: [UInt64] = []
            for _ in 0..<nDims { shape.append(try c.read(UInt64.self, "dimensions of '\(name)'")) }
            let type = try c.read(UInt32.self, "type of '\(name)'")
            let offset = try c.read(UInt64.self, "offset of '\(name)'")
            if !seen.insert(name).inserted { throw .duplicateTensor(name) }
            infos.append((name, shape, type, offset))
        }

        let a = out.alignment
        out.dataOffset = (c.offset + a - 1) / a * a
        let dataSize = size - min(out.dataOffset, size)

        for info in infos {
            let t = try validateTensor(info, alignment: a, dataSize: dataSize)
            out.tensors.append(t)
        }
        // Overlap check: sorted by offset, each tensor must end before the next starts.
        let sorted = out.tensors.sorted { $0.offset < $1.offset }
        for (prev, next) in zip(sorted, sorted.dropFirst()) where prev.offset + prev.byteCount > next.offset {
            throw .badTensorData(tensor: next.name, offset: UInt64(next.offset), reason: "overlaps tensor '\(prev.name)'")
        }
        return out
    }

    private static func validateTensor(_ info: (name: String, shape: [UInt64], type: UInt32, offset: UInt64),
                                       alignment: Int, dataSize: Int) throws(ModelLoadError) -> GGUFTensorInfo {
        let type = Int32(bitPattern: info.type)
        guard loom_type_supported(type) else { throw .unknownTensorType(tensor: info.name, type: info.type) }
        var elements: UInt64 = 1
        for d in info.shape {
            guard d > 0 else { throw .badTensorShape(tensor: info.name, shape: info.shape, reason: "zero dimension") }
            let (p, overflow) = elements.multipliedReportingOverflow(by: d)
            guard !overflow, p < UInt64(1) << 48 else {
                throw .badTensorShape(tensor: info.name, shape: info.shape, reason: "element count overflows")
            }
            elements = p
        }
        let blockElems = UInt64(loom_type_block_elems(type))
        guard info.shape[0] % blockElems == 0 else {
            throw .badTensorShape(tensor: info.name, shape: info.shape,
                                  reason: "row length \(info.shape[0]) not a multiple of the block size \(blockElems)")
        }
        let bytes = elements / blockElems * UInt64(loom_type_block_bytes(type))
        guard info.offset % UInt64(alignment) == 0 else {
            throw .badTensorData(tensor: info.name, offset: info.offset, reason: "not aligned to \(alignment)")
        }
        guard info.offset <= UInt64(dataSize), bytes <= UInt64(dataSize) - info.offset else {
            throw .badTensorData(tensor: info.name, offset: info.offset,
                                 reason: "\(bytes) bytes extend past the end of the file")
        }
        return GGUFTensorInfo(name: info.name, shape: info.shape.map { Int($0) }, typeID: info.type,
                              offset: Int(info.offset), byteCount: Int(bytes))
    }

    private static func readValue(_ c: inout GGUFCursor, type: GGUFValueType, key: String, depth: Int) throws(ModelLoadError) -> GGUFValue {
        switch type {
        case .uint8: return .uint8(try c.read(UInt8.self, key))
        case .int8: return .int8(try c.read(Int8.self, key))
        case .uint16: return .uint16(try c.read(UInt16.self, key))
        case .int16: return .int16(try c.read(Int16.self, key))
        case .uint32: return .uint32(try c.read(UInt32.self, key))
        case .int32: return .int32(try c.read(Int32.self, key))
        case .uint64: return .uint64(try c.read(UInt64.self, key))
        case .int64: return .int64(try c.read(Int64.self, key))
        case .float32: return .float32(Float(bitPattern: try c.read(UInt32.self, key)))
        case .float64: return .float64(Double(bitPattern: try c.read(UInt64.self, key)))
        case .bool: return .bool(try c.read(UInt8.self, key) != 0)
        case .string: return .string(try c.readString(key, wide: true))
        case .array:
            if depth >= maximumNesting { throw .nestingTooDeep(offset: c.offset, key: key) }
            let typeAt = c.offset
            let rawType = try c.read(UInt32.self, "array type of '\(key)'")
            guard let elementType = GGUFValueType(rawValue: rawType) else {
                throw .unknownValueType(offset: typeAt, key: key, type: rawType)
            }
            // Strings and arrays take at least 8 bytes each (their own length/header).
            let minSize = elementType.scalarSize ?? (elementType == .string ? 8 : 12)
            let count = try c.readCount("array length of '\(key)'", minElementSize: minSize, wide: true)
            var items: [GGUFValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count {
                items.append(try readValue(&c, type: elementType, key: key, depth: depth + 1))
            }
            return .array(elementType, items)
        }
    }
}
