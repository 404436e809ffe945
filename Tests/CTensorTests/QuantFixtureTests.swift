import CTensor
import Testing

/// Dequantization against values computed independently by gguf-py (llama.cpp's Python
/// reference); see Tests/Fixtures/make_quant_fixtures.py. Every tier must match bit for bit.
@Suite struct QuantFixtureTests {
    @Test(arguments: QuantCase.all)
    func dequantizationMatchesGGUFReference(_ c: QuantCase) throws {
        let dir = quantFixtureDirectory()
        let blocks = try #require(readFile("\(dir)/\(c.name).blocks"), "missing fixture \(c.name).blocks")
        let expectedBytes = try #require(readFile("\(dir)/\(c.name).f32"), "missing fixture \(c.name).f32")
        let n = expectedBytes.count / 4
        #expect(blocks.count == Int(loom_row_bytes(c.type, Int64(n))))
        var expected = [Float](repeating: 0, count: n)
        for i in 0..<n {
            var bits: UInt32 = 0
            for k in 0..<4 { bits |= UInt32(expectedBytes[4 * i + k]) << UInt32(8 * k) }
            expected[i] = Float(bitPattern: bits)
        }
        for tier in availableTiers {
            var out = [Float](repeating: .nan, count: n)
            loom_dequantize_row_isa(tier, c.type, blocks, &out, Int64(n))
            let bad = (0..<n).filter { out[$0] != expected[$0] }
            #expect(bad.isEmpty, "\(c.name) \(tier): \(bad.count) values differ, first at \(bad.first ?? 0): \(bad.first.map { out[$0] } ?? 0) vs \(bad.first.map { expected[$0] } ?? 0)")
        }
    }
}
