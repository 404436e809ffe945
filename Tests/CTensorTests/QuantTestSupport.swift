import CTensor

#if canImport(Glibc)
import Glibc
#endif

/// The element types the quant tests sweep, with where each block keeps its scales.
struct QuantCase: CustomStringConvertible, Sendable {
    let type: Int32
    /// (byte offset, magnitude, signed) of each f16 scale field in a block; Q8_K's f32 d is
    /// handled separately.
    let scaleFields: [(Int, Float, Bool)]

    var name: String { String(cString: loom_type_name(type)) }
    var description: String { name }
    var blockElems: Int { Int(loom_type_block_elems(type)) }
    var blockBytes: Int { Int(loom_type_block_bytes(type)) }
    var isFloat: Bool { loom_type_is_float(type) }

    static let all: [QuantCase] = [
        QuantCase(type: 0, scaleFields: []),
        QuantCase(type: 1, scaleFields: []),
        QuantCase(type: 30, scaleFields: []),
        QuantCase(type: 2, scaleFields: [(0, 0.05, true)]),
        QuantCase(type: 3, scaleFields: [(0, 0.05, false), (2, 0.5, true)]),
        QuantCase(type: 6, scaleFields: [(0, 0.05, true)]),
        QuantCase(type: 7, scaleFields: [(0, 0.05, false), (2, 0.5, true)]),
        QuantCase(type: 8, scaleFields: [(0, 0.01, true)]),
        QuantCase(type: 9, scaleFields: [(0, 0.01, true), (2, 1.0, true)]),
        QuantCase(type: 10, scaleFields: [(80, 0.05, false), (82, 0.05, false)]),
        QuantCase(type: 11, scaleFields: [(108, 0.05, true)]),
        QuantCase(type: 12, scaleFields: [(0, 0.05, false), (2, 0.05, false)]),
        QuantCase(type: 13, scaleFields: [(0, 0.05, false), (2, 0.05, false)]),
        QuantCase(type: 14, scaleFields: [(208, 0.05, true)]),
        QuantCase(type: 15, scaleFields: []),
    ]
}

/// Every kernel tier this machine can run.
var availableTiers: [loom_isa] {
    [LOOM_ISA_SCALAR, LOOM_ISA_AVX2, LOOM_ISA_AVX512].filter { $0.rawValue <= loom_isa_best().rawValue }
}

extension loom_isa: @retroactive CustomStringConvertible {
    public var description: String { String(cString: loom_isa_name(self)) }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct TestRNG {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
    /// Uniform in [-1, 1).
    mutating func float() -> Float { Float(Double(next() >> 11) / Double(1 << 53)) * 2 - 1 }
}

/// Random rows of `type`: random bytes everywhere, with finite random scales patched in, so
/// every packed bit pattern occurs and every value stays finite.
func randomWeights(_ c: QuantCase, rows: Int, cols: Int, rng: inout TestRNG) -> [UInt8] {
    let rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
    var w = [UInt8](repeating: 0, count: rows * rowBytes)
    for i in w.indices { w[i] = UInt8(truncatingIfNeeded: rng.next() >> 32) }
    let nBlocks = rows * cols / c.blockElems
    func putF16(_ v: Float, at off: Int) {
        let h = loom_fp32_to_fp16(v)
        w[off] = UInt8(h & 0xFF)
        w[off + 1] = UInt8(h >> 8)
    }
    for b in 0..<nBlocks {
        let base = b * c.blockBytes
        switch c.type {
        case 0:
            let bits = (rng.float() * 2).bitPattern
            for k in 0..<4 { w[base + k] = UInt8(truncatingIfNeeded: bits >> (8 * UInt32(k))) }
        case 1: putF16(rng.float() * 2, at: base)
        case 30:
            let h = loom_fp32_to_bf16(rng.float() * 2)
            w[base] = UInt8(h & 0xFF)
            w[base + 1] = UInt8(h >> 8)
        case 15:
            let bits = (0.001 + 0.02 * abs(rng.float())).bitPattern
            for k in 0..<4 { w[base + k] = UInt8(truncatingIfNeeded: bits >> (8 * UInt32(k))) }
        default:
            for (off, mag, signed) in c.scaleFields {
                let v = signed ? rng.float() * mag : abs(rng.float()) * mag
                putF16(v, at: base + off)
            }
        }
    }
    return w
}

/// Activations with a few outliers, as transformer activations have.
func randomActivations(count: Int, rng: inout TestRNG) -> [Float] {
    (0..<count).map { i in rng.float() * (i % 13 == 5 ? 8 : 1) }
}

/// Reads a whole file (fixtures), or nil.
func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out.append(contentsOf: buf[0..<n])
    }
    return out
}

/// Tests/Fixtures/quant, found relative to this source file.
func quantFixtureDirectory(_ file: String = #filePath) -> String {
    var parts = file.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(2)  // QuantTestSupport.swift, CTensorTests
    return parts.joined(separator: "/") + "/Fixtures/quant"
}
