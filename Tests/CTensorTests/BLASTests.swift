import CTensor
import Foundation
import Testing

/// sgemm (OpenBLAS and Loom's own, every tier) against a naive float64 product.
@Suite struct BLASTests {
    static func naive(m: Int, n: Int, k: Int, a: [Float], lda: Int, b: [Float], ldb: Int) -> [Double] {
        var c = [Double](repeating: 0, count: m * n)
        for i in 0..<m {
            for j in 0..<n {
                var s = 0.0
                for p in 0..<k { s += Double(a[i * lda + p]) * Double(b[j * ldb + p]) }
                c[i * n + j] = s
            }
        }
        return c
    }

    static let shapes: [(m: Int, n: Int, k: Int)] = [
        (1, 1, 1), (1, 16, 8), (6, 16, 256), (7, 17, 33), (13, 31, 600), (64, 48, 257), (5, 100, 576), (70, 33, 300),
        (63, 3, 9),
    ]

    @Test func ownSgemmMatchesFloat64OnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 40)
        OpsSupport.forEachTier { tier in
            for s in Self.shapes {
                // Padded leading dimensions catch stride mistakes.
                let lda = s.k + 3, ldb = s.k + 1, ldc = s.n + 2
                let a = gen.floats(s.m * lda), b = gen.floats(s.n * ldb)
                var c = [Float](repeating: .nan, count: s.m * ldc)
                loom_sgemm_own(Int64(s.m), Int64(s.n), Int64(s.k), a, Int64(lda), b, Int64(ldb), &c, Int64(ldc))
                let ref = Self.naive(m: s.m, n: s.n, k: s.k, a: a, lda: lda, b: b, ldb: ldb)
                var worst = 0.0
                for i in 0..<s.m {
                    for j in 0..<s.n {
                        worst = max(worst, abs(Double(c[i * ldc + j]) - ref[i * s.n + j]) / Double(s.k).squareRoot())
                    }
                    // Padding columns are left alone.
                    #expect(c[(i * ldc + s.n)..<(i * ldc + ldc)].allSatisfy { $0.isNaN })
                }
                #expect(worst < 1e-6, "tier \(tier) shape \(s)")
            }
        }
    }

    @Test func activeBackendMatchesFloat64() {
        var gen = OpsSupport.Numbers(seed: 41)
        for backend in [LOOM_BLAS_OWN, LOOM_BLAS_OPENBLAS] {
            let before = loom_blas_backend_active()
            defer { _ = loom_blas_set_backend(before) }
            let active = loom_blas_set_backend(backend)
            if backend == LOOM_BLAS_OPENBLAS { #expect((active == backend) == loom_blas_openblas_available()) }
            for s in Self.shapes {
                let a = gen.floats(s.m * s.k), b = gen.floats(s.n * s.k)
                var c = [Float](repeating: .nan, count: s.m * s.n)
                loom_sgemm(Int64(s.m), Int64(s.n), Int64(s.k), a, Int64(s.k), b, Int64(s.k), &c, Int64(s.n))
                let ref = Self.naive(m: s.m, n: s.n, k: s.k, a: a, lda: s.k, b: b, ldb: s.k)
                let worst = zip(c, ref).map { abs(Double($0) - $1) }.max()! / Double(s.k).squareRoot()
                #expect(worst < 1e-6, "backend \(active) shape \(s)")
            }
        }
    }

    @Test func emptyInnerDimensionGivesZerosAndBadShapesAreRejected() {
        for backend in [LOOM_BLAS_OWN, LOOM_BLAS_OPENBLAS] {
            let before = loom_blas_backend_active()
            defer { _ = loom_blas_set_backend(before) }
            _ = loom_blas_set_backend(backend)
            var c = [Float](repeating: .nan, count: 6)
            #expect(loom_sgemm(2, 3, 0, [], 1, [], 1, &c, 3) == 0)
            #expect(c == [0, 0, 0, 0, 0, 0])
            let a = [Float](repeating: 1, count: 8)
            c = [Float](repeating: 7, count: 6)
            #expect(loom_sgemm(2, 3, 4, a, 3, a, 4, &c, 3) == -1)  // lda shorter than K
            #expect(loom_sgemm(2, 3, 4, a, 4, a, 4, &c, 2) == -1)  // ldc shorter than N
            #expect(loom_sgemm(-1, 3, 4, a, 4, a, 4, &c, 3) == -1)
            #expect(c.allSatisfy { $0 == 7 })
        }
        var c = [Float](repeating: .nan, count: 6)
        #expect(loom_sgemm_own(2, 3, 0, [], 1, [], 1, &c, 3) == 0)
        #expect(c == [0, 0, 0, 0, 0, 0])
    }

    @Test func openBLASRunsWithTheCoreLoomChose() {
        let name = String(cString: loom_blas_core_name())
        if !loom_blas_openblas_available() {
            #expect(name == "none")
            return
        }
        // Without Loom's override Debian's OpenBLAS 0.3.21 can fall back to Prescott kernels on
        // CPUs it does not know; with it, any AVX2 machine gets at least Haswell-class kernels.
        if ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] == nil || loom_isa_best() != LOOM_ISA_SCALAR {
            if loom_isa_best().rawValue >= LOOM_ISA_AVX2.rawValue {
                #expect(!["Prescott", "Core2", "Katmai", "Nehalem", "Atom", "unknown"].contains(name), "core \(name)")
            }
        }
        if loom_isa_best() == LOOM_ISA_AVX512 && ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] == "SkylakeX" {
            #expect(name == "SkylakeX")
        }
    }
}
