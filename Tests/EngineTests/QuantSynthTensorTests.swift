import CTensor
import Engine
import Foundation
import Testing

/// Loom's dequantization and products on real llama.cpp-quantized tensors (the synthetic models
/// in ../shared/models/fixtures), checked against gguf-py's dequantization of the same tensors
/// (Tests/Fixtures/quant/synth_tensors.json, written by make_quant_fixtures.py).
@Suite struct QuantSynthTensorTests {
    struct Entry: Sendable, CustomStringConvertible {
        let file: String
        let tensor: String
        let type: String
        let elements: Int
        let sum: Double
        let sumSquares: Double
        let samples: [(Int, Float)]
        var description: String { "\(type) \(file):\(tensor)" }
    }

    static let entries: [Entry] = {
        let path = SharedData.packageRoot.appendingPathComponent("Tests/Fixtures/quant/synth_tensors.json").path
        guard let data = FileManager.default.contents(atPath: path),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return list.map { e in
            Entry(file: e["file"] as! String, tensor: e["tensor"] as! String, type: e["type"] as! String,
                  elements: e["elements"] as! Int, sum: e["sum"] as! Double, sumSquares: e["sum_squares"] as! Double,
                  samples: (e["samples"] as! [[Any]]).map { ($0[0] as! Int, Float($0[1] as! Double)) })
        }
    }()

    static var tiers: [loom_isa] {
        [LOOM_ISA_SCALAR, LOOM_ISA_AVX2, LOOM_ISA_AVX512].filter { $0.rawValue <= loom_isa_best().rawValue }
    }

    @Test func fixtureCoversEveryStoredWeightType() {
        // Missing fixtures must fail, never skip.
        #expect(Set(Self.entries.map(\.type)) == ["F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0",
                                                  "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"])
    }

    @Test(arguments: entries)
    func dequantizationMatchesGGUFPy(_ e: Entry) throws {
        let file = try GGUFFile(path: SharedData.path("models/fixtures/\(e.file)"))
        let t = try #require(file.tensor(named: e.tensor))
        #expect(t.typeName == e.type && t.elementCount == e.elements)
        for tier in Self.tiers {
            var out = [Float](repeating: .nan, count: e.elements)
            loom_dequantize_row_isa(tier, Int32(t.typeID), file.data(for: t), &out, Int64(e.elements))
            var sum = 0.0, sq = 0.0
            for v in out {
                sum += Double(v)
                sq += Double(v) * Double(v)
            }
            #expect(abs(sum - e.sum) <= 1e-9 * max(1, sq), "\(e) tier \(tier.rawValue): sum \(sum) vs \(e.sum)")
            #expect(abs(sq - e.sumSquares) <= 1e-9 * sq, "\(e) tier \(tier.rawValue): sum of squares")
            let bad = e.samples.filter { out[$0.0] != $0.1 }
            #expect(bad.isEmpty, "\(e) tier \(tier.rawValue): samples differ at \(bad.prefix(4).map(\.0))")
        }
    }

    @Test(arguments: entries)
    func matvecMatchesFloat64OnRealWeights(_ e: Entry) throws {
        let file = try GGUFFile(path: SharedData.path("models/fixtures/\(e.file)"))
        let t = try #require(file.tensor(named: e.tensor))
        let cols = t.shape[0], rows = t.rowCount, type = Int32(t.typeID)
        let rowBytes = loom_row_bytes(type, Int64(cols))
        var w = [Float](repeating: 0, count: e.elements)
        loom_dequantize_row_isa(LOOM_ISA_SCALAR, type, file.data(for: t), &w, Int64(e.elements))
        var x = [Float](repeating: 0, count: cols)
        for i in 0..<cols { x[i] = Float(sin(Double(i) * 0.7)) * (i % 29 == 3 ? 6 : 1) }
        var gmax = [Double](repeating: 0, count: (cols + 31) / 32)
        for i in 0..<cols { gmax[i / 32] = max(gmax[i / 32], abs(Double(x[i]))) }
        for tier in Self.tiers {
            var y = [Float](repeating: .nan, count: rows)
            loom_matmul_isa(tier, type, file.data(for: t), rowBytes, Int64(cols), x, Int64(cols), &y, 0, 1, 0, Int64(rows))
            var worst = 0.0
            for r in 0..<rows {
                var exact = 0.0, wx = 0.0, a16 = 0.0
                for i in 0..<cols {
                    let wv = Double(w[r * cols + i]), xv = Double(x[i])
                    exact += wv * xv
                    wx += abs(wv * xv)
                    a16 += abs(wv) * gmax[i / 32] / 65534
                }
                // A16 rounding bound (see CTensorTests/QuantKernelTests) plus f32 accumulation.
                let isFloat = loom_type_is_float(type)
                let bound = (isFloat ? 0 : a16 * 1.0001) + (isFloat ? Double(cols) * 6e-8 : Double(cols / 32 + 8) * 3e-7) * wx + 1e-7
                worst = max(worst, abs(Double(y[r]) - exact) / bound)
            }
            #expect(worst <= 1, "\(e) tier \(tier.rawValue): error/bound \(worst)")
        }
    }
}
