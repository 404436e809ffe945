import Engine
import Testing

/// Hand-made broken GGUF files, each with the exact error expected, plus a seeded mutation loop
/// over real fixtures: the reader must answer every input with a value or a `ModelLoadError`.
@Suite struct GGUFHostileInputTests {
    @Test func validBuilderFileLoads() throws {
        let file = try GGUFFile(bytes: GGUFBuilder.valid())
        #expect(file.tensors.map(\.name) == ["a", "b"])
        #expect(file.tensor(named: "a")?.byteCount == 32)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let expected: ModelLoadError
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        var cases: [Case] = []
        func add(_ name: String, _ expected: ModelLoadError, _ build: (inout GGUFBuilder) -> Void) {
            var b = GGUFBuilder()
            build(&b)
            cases.append(Case(name: name, bytes: b.bytes, expected: expected))
        }
        add("wrong magic", .badMagic(found: 0x4C4C_4747)) { $0.header(tensors: 0, kvs: 0, magic: 0x4C4C_4747) }
        add("version 1", .unsupportedVersion(1)) { $0.header(version: 1, tensors: 0, kvs: 0) }
        add("version 4", .unsupportedVersion(4)) { $0.header(version: 4, tensors: 0, kvs: 0) }
        add("header cut short", .truncated(offset: 8, needed: 8, what: "tensor count")) { b in
            b.u32(0x4655_4747); b.u32(3); b.u32(0)
        }
        add("absurd tensor count", .implausibleSize(offset: 8, what: "tensor count", value: 1 << 60)) {
            $0.header(tensors: 1 << 60, kvs: 0)
        }
        add("absurd string length", .implausibleSize(offset: 24, what: "metadata key", value: 1 << 60)) { b in
            b.header(tensors: 0, kvs: 1); b.u64(1 << 60); b.bytes.append(contentsOf: repeatElement(0, count: 64))
        }
        add("unknown value type", .unknownValueType(offset: 33, key: "k", type: 13)) { b in
            b.header(tensors: 0, kvs: 1); b.string("k"); b.u32(13)
        }
        add("absurd array length", .implausibleSize(offset: 41, what: "array length of 'k'", value: 1 << 40)) { b in
            b.header(tensors: 0, kvs: 1); b.string("k"); b.u32(9); b.u32(4); b.u64(1 << 40)
        }
        add("arrays nested too deeply", .nestingTooDeep(offset: 33 + 4 + 8 * 12, key: "k")) { b in
            b.header(tensors: 0, kvs: 1); b.string("k"); b.u32(9)
            for _ in 0..<9 { b.u32(9); b.u64(1) }
            b.bytes.append(contentsOf: repeatElement(0, count: 64))
        }
        add("duplicate key", .duplicateKey("k")) { b in
            b.header(tensors: 0, kvs: 2); b.kv("k", u32: 1); b.kv("k", u32: 2)
        }
        add("alignment not a multiple of 8", .inconsistentHyperparameters("general.alignment 12 is not a positive multiple of 8")) { b in
            b.header(tensors: 0, kvs: 1); b.kv("general.alignment", u32: 12)
        }
        add("alignment of the wrong type", .wrongValueType(key: "general.alignment", expected: "u32", found: "string")) { b in
            b.header(tensors: 0, kvs: 1); b.kv("general.alignment", string: "32")
        }
        add("removed tensor type 4", .unknownTensorType(tensor: "t", type: 4)) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [32], type: 4, offset: 0); b.data(count: 64)
        }
        add("unknown tensor type 99", .unknownTensorType(tensor: "t", type: 99)) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [32], type: 99, offset: 0); b.data(count: 64)
        }
        add("IQ type Loom does not implement", .unknownTensorType(tensor: "t", type: 16)) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [256], type: 16, offset: 0); b.data(count: 256)
        }
        add("zero dimensions", .implausibleSize(offset: 33, what: "dimension count of 't'", value: 0)) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [], type: 0, offset: 0)
        }
        add("five dimensions", .implausibleSize(offset: 33, what: "dimension count of 't'", value: 5)) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [1, 1, 1, 1, 1], type: 0, offset: 0)
        }
        add("a zero-length axis", .badTensorShape(tensor: "t", shape: [4, 0], reason: "zero dimension")) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [4, 0], type: 0, offset: 0); b.data(count: 32)
        }
        add("row not a multiple of the block", .badTensorShape(tensor: "t", shape: [48], reason: "row length 48 not a multiple of the block size 32")) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [48], type: 8, offset: 0); b.data(count: 64)
        }
        add("element count overflow", .badTensorShape(tensor: "t", shape: [1 << 32, 1 << 32], reason: "element count overflows")) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [1 << 32, 1 << 32], type: 0, offset: 0); b.data(count: 32)
        }
        add("misaligned data", .badTensorData(tensor: "t", offset: 4, reason: "not aligned to 32")) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [4], type: 0, offset: 4); b.data(count: 64)
        }
        add("data past the end", .badTensorData(tensor: "t", offset: 0, reason: "64 bytes extend past the end of the file")) { b in
            b.header(tensors: 1, kvs: 0); b.tensor("t", shape: [16], type: 0, offset: 0); b.data(count: 32)
        }
        add("overlapping tensors", .badTensorData(tensor: "b", offset: 32, reason: "overlaps tensor 'a'")) { b in
            b.header(tensors: 2, kvs: 0)
            b.tensor("a", shape: [16], type: 0, offset: 0)
            b.tensor("b", shape: [8], type: 0, offset: 32)
            b.data(count: 96)
        }
        add("duplicate tensor", .duplicateTensor("t")) { b in
            b.header(tensors: 2, kvs: 0)
            b.tensor("t", shape: [8], type: 0, offset: 0)
            b.tensor("t", shape: [8], type: 0, offset: 32)
            b.data(count: 64)
        }
        return cases
    }()

    @Test(arguments: cases)
    func brokenFileGivesTheExpectedError(_ c: Case) {
        #expect(throws: c.expected) { try GGUFFile(bytes: c.bytes, name: c.name) }
    }

    @Test func everyPrefixOfAValidFileIsRejectedCleanly() {
        let bytes = GGUFBuilder.valid()
        for n in 0..<bytes.count {
            #expect(throws: ModelLoadError.self) { try GGUFFile(bytes: Array(bytes.prefix(n))) }
        }
    }

    @Test func emptyAndMissingFiles() throws {
        #expect(throws: ModelLoadError.self) { try GGUFFile(path: "/nonexistent/loom.gguf") }
        #expect(throws: ModelLoadError.self) { try GGUFFile(path: "/tmp") }
        let empty = try SharedData.temporaryFile(bytes: [])
        #expect(throws: ModelLoadError.truncated(offset: 0, needed: 4, what: "magic")) { try GGUFFile(path: empty) }
    }

    /// Thousands of seeded mutations (byte flips, overwritten counts, truncations) of real files:
    /// every one must load or throw a `ModelLoadError` (and so must the model description and the
    /// tokenizer built from what loads) — a crash fails the whole test run.
    @Test(arguments: ["models/stories260K.gguf", "models/fixtures/synth-llama-q4_k_m.gguf"])
    func seededMutationsNeverCrash(_ relative: String) throws {
        let original = try SharedData.bytes(relative)
        // The interesting bytes are the header, metadata and tensor table; data bytes are opaque.
        let file = try GGUFFile(bytes: original)
        let headerEnd = file.dataOffset
        var rng = SplitMix64(seed: 0x10_0A_D5)
        var loaded = 0, rejected = 0
        for _ in 0..<3000 {
            var m = Array(original.prefix(headerEnd + 4096))
            switch rng.next() % 4 {
            case 0:
                for _ in 0..<(1 + rng.next() % 8) { m[Int(rng.next() % UInt64(headerEnd))] ^= UInt8(truncatingIfNeeded: rng.next() | 1) }
            case 1:
                // Overwrite an aligned 8-byte field with a hostile value.
                let at = Int(rng.next() % UInt64(headerEnd - 8))
                let values: [UInt64] = [0, 1, .max, 1 << 60, UInt64(UInt32.max), 0x8000_0000]
                withUnsafeBytes(of: values[Int(rng.next() % 6)].littleEndian) { m.replaceSubrange(at..<at + 8, with: $0) }
            case 2:
                m = Array(m.prefix(Int(rng.next() % UInt64(m.count))))
            default:
                let at = Int(rng.next() % UInt64(headerEnd))
                m.insert(contentsOf: [UInt8](repeating: UInt8(truncatingIfNeeded: rng.next()), count: Int(1 + rng.next() % 16)), at: at)
            }
            // A file that still parses must also give a model description and a tokenizer,
            // or typed errors: the layers above the reader see hostile metadata too.
            do {
                let file = try GGUFFile(bytes: m)
                _ = try? ModelDescription(file: file)
                _ = try? Tokenizer(gguf: file)
                loaded += 1
            } catch {
                rejected += 1
            }
        }
        #expect(loaded + rejected == 3000)
        #expect(rejected > 0)
    }
}

/// A tiny seeded generator for reproducible mutations (splitmix64).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15  // &+: the generator is defined modulo 2^64
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
