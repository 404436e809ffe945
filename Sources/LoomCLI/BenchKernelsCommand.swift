import CTensor
import LoomJSON

#if canImport(Glibc)
import Glibc
#endif

/// `loom bench kernels`: how close the product kernels come to the memory bandwidth.
///
/// Decode is a matrix-vector product per weight matrix, so each weight byte is read once per
/// token: the kernels should run at the speed the memory delivers bytes. This measures that
/// speed (a streaming read, 1 and 2 threads), then each weight type's matvec over a matrix far
/// larger than the last-level cache, reported as weight bytes per second and as a share of the
/// read bandwidth, and finally single-threaded sgemm GFLOP/s (the prompt path). A type is
/// measured in the layout a loaded model decodes with: rows interleaved by eight where the type
/// has that form (`Weights` repacks those matrices at load), its file rows otherwise.
enum BenchKernels {
    struct MatvecResult {
        let type: String
        /// "interleaved" (rows by eight, as a loaded model holds the type) or "rows".
        let layout: String
        let gbps1: Double
        let gbps2: Double
        /// Single thread over a 256 KiB slice that stays in L2: the kernel's compute ceiling,
        /// unaffected by memory (or by other processes' memory traffic on a shared host).
        let gbpsCached: Double
        /// The same in-L2 rate at every tier this machine runs (scalar first), when no tier was
        /// asked for: the tiers side by side, each against the others on the same bytes.
        let cachedByTier: [(isa: String, gbps: Double)]
    }

    /// Weight types in the order reported: the common decode formats first.
    static let types: [Int32] = [2, 3, 8, 12, 14, 6, 7, 10, 11, 13, 9, 15, 1, 30, 0]

    static func run(_ args: Arguments) throws {
        let isa = args.value("isa")
        if let isa { try selectTier(isa) }
        let sizeMB = try args.int("size-mb", default: 256)
        guard sizeMB >= 8 else { throw UsageError("--size-mb must be at least 8") }
        let progress = !args.has("json") && StandardError.isTerminal
        let m = try measure(bytes: sizeMB << 20, tiers: isa == nil ? runnableTiers() : [], progress: progress)
        if args.has("json") {
            StandardOutput.write(jsonReport(m, sizeMB: sizeMB).serialized() + "\n")
        } else {
            StandardOutput.write(textReport(m, sizeMB: sizeMB))
        }
    }

    /// Makes `isa` (`scalar`, `avx2`, `avx512`) the active kernel tier.
    static func selectTier(_ isa: String) throws {
        let want: loom_isa
        switch isa {
        case "scalar": want = LOOM_ISA_SCALAR
        case "avx2": want = LOOM_ISA_AVX2
        case "avx512": want = LOOM_ISA_AVX512
        default: throw UsageError("--isa expects scalar, avx2 or avx512, got '\(isa)'")
        }
        if loom_isa_set(want) != want {
            throw RuntimeError("this machine cannot run the \(isa) tier (best: \(String(cString: loom_isa_name(loom_isa_best()))))")
        }
    }

    /// Every tier this machine runs, lowest first.
    static func runnableTiers() -> [loom_isa] {
        [LOOM_ISA_SCALAR, LOOM_ISA_AVX2, LOOM_ISA_AVX512].filter { $0.rawValue <= loom_isa_best().rawValue }
    }

    /// Everything `loom bench kernels` reports.
    struct Measurement {
        /// Best streaming read rate on 1 and 2 threads.
        var read1: Double, read2: Double
        var results: [MatvecResult]
        var gflops: Double?
        var blasCore: String
        let isa: String
        var readBest: Double { max(read1, read2) }
    }

    /// Columns of every measured weight matrix.
    static let matvecColumns = 4096

    /// `tiers`: the tiers whose in-L2 rates are reported side by side (none: the active tier's only).
    static func measure(bytes: Int, tiers: [loom_isa], progress: Bool) throws -> Measurement {
        let isaName = String(cString: loom_isa_name(loom_isa_active()))
        guard let raw = aligned(bytes) else { throw RuntimeError("cannot allocate \(bytes >> 20) MiB") }
        defer { free(raw) }
        fill(raw, bytes)
        guard let pool1 = loom_pool_create(1), let pool2 = loom_pool_create(2) else {
            throw RuntimeError("cannot start the thread pool")
        }
        defer {
            loom_pool_destroy(pool1)
            loom_pool_destroy(pool2)
        }

        if progress { StandardError.line("measuring read bandwidth over \(bytes >> 20) MiB…") }
        // The machine may be shared: the yardstick is re-measured between types and the best
        // figure kept, so a busy moment cannot inflate the shares.
        var m = Measurement(read1: readBandwidth(pool1, raw, bytes), read2: readBandwidth(pool2, raw, bytes),
                            results: [], gflops: nil, blasCore: "", isa: isaName)
        let x = UnsafeMutablePointer<Float>.allocate(capacity: matvecColumns)
        defer { x.deallocate() }
        for i in 0..<matvecColumns { x[i] = Float(sin(Double(i) * 0.37)) }
        // The interleaved copy of each type that has one, made from the same bytes.
        guard let packed = aligned(bytes) else { throw RuntimeError("cannot allocate \(bytes >> 20) MiB") }
        defer { free(packed) }
        for type in types {
            if progress { StandardError.line("matvec \(String(cString: loom_type_name(type)))…") }
            m.results.append(matvec(type, raw, packed, bytes, x, pool1, pool2, tiers: tiers))
            m.read1 = max(m.read1, readBandwidth(pool1, raw, bytes, repeats: 1))
            m.read2 = max(m.read2, readBandwidth(pool2, raw, bytes, repeats: 1))
        }
        (m.gflops, m.blasCore) = sgemm()
        return m
    }

    /// One weight type's matvec over `bytes` of weights, in the layout decode uses (repacked into
    /// `packed` where the type interleaves): 1 and 2 threads, then in L2 on 1 thread.
    static func matvec(_ fileType: Int32, _ raw: UnsafeMutableRawPointer, _ packed: UnsafeMutableRawPointer, _ bytes: Int,
                       _ x: UnsafeMutablePointer<Float>, _ pool1: OpaquePointer, _ pool2: OpaquePointer,
                       tiers: [loom_isa]) -> MatvecResult {
        let nCols = matvecColumns
        let rowBytes = loom_row_bytes(fileType, Int64(nCols))
        let rows = bytes / rowBytes / 8 * 8
        // -1, nothing written, for a type without an interleaved form.
        let x8 = loom_repack_x8(fileType, raw, rowBytes, Int64(rows), Int64(nCols), packed)
        let (type, raw) = x8 >= 0 ? (x8, packed) : (fileType, raw)
        let y = UnsafeMutablePointer<Float>.allocate(capacity: rows)
        defer { y.deallocate() }
        let matrixBytes = Double(rows * rowBytes)
        func timed(_ pool: OpaquePointer) -> Double {
            loom_par_matvec(pool, type, raw, rowBytes, Int64(nCols), x, y, Int64(rows))  // warm-up
            var best = Double.infinity
            for _ in 0..<5 {
                let t0 = loom_now_seconds()
                loom_par_matvec(pool, type, raw, rowBytes, Int64(nCols), x, y, Int64(rows))
                best = min(best, loom_now_seconds() - t0)
            }
            return matrixBytes / best / 1e9
        }
        func cached() -> Double {
            let cachedRows = max(8, (256 << 10) / rowBytes / 8 * 8)
            let reps = 64
            loom_matvec(type, raw, rowBytes, Int64(nCols), x, y, 0, Int64(cachedRows))
            var best = Double.infinity
            for _ in 0..<5 {
                let t0 = loom_now_seconds()
                for _ in 0..<reps { loom_matvec(type, raw, rowBytes, Int64(nCols), x, y, 0, Int64(cachedRows)) }
                best = min(best, loom_now_seconds() - t0)
            }
            return Double(cachedRows * rowBytes * reps) / best / 1e9
        }
        let name = String(cString: loom_type_name(fileType))
        let active = loom_isa_active()
        let byTier = tiers.map { tier -> (isa: loom_isa, gbps: Double) in
            loom_isa_set(tier)
            defer { loom_isa_set(active) }
            return (tier, cached())
        }
        // The active tier's rate is one of those when the tiers were measured side by side.
        let activeCached = byTier.first { $0.isa == active }?.gbps ?? cached()
        return MatvecResult(type: name, layout: type == fileType ? "rows" : "interleaved", gbps1: timed(pool1),
                            gbps2: timed(pool2), gbpsCached: activeCached,
                            cachedByTier: byTier.map { (String(cString: loom_isa_name($0.isa)), $0.gbps) })
    }

    static func jsonReport(_ m: Measurement, sizeMB: Int) -> JSONValue {
        func num(_ v: Double) -> JSONValue { .number(JSONNumber((v * 100).rounded() / 100)) }
        let matvec: [JSONValue] = m.results.map { r in
            .object(JSONObject([
                ("type", .string(r.type)), ("layout", .string(r.layout)), ("gbps", num(r.gbps2)),
                ("share", num(r.gbps2 / m.readBest)),
                ("gbps_1thread", num(r.gbps1)), ("share_1thread", num(r.gbps1 / m.read1)),
                ("gbps_in_cache_1thread", num(r.gbpsCached)),
            ] + (r.cachedByTier.isEmpty ? [] : [
                ("gbps_in_cache_by_tier", .object(JSONObject(r.cachedByTier.map { ($0.isa, num($0.gbps)) }))),
            ])))
        }
        return .object(JSONObject([
            ("read_bandwidth_gbps", num(m.readBest)),
            ("read_bandwidth_1thread_gbps", num(m.read1)),
            ("read_bandwidth_2thread_gbps", num(m.read2)),
            ("matvec", .array(matvec)),
            ("matvec_cols", .number(JSONNumber(matvecColumns))),
            ("matrix_mib", .number(JSONNumber(sizeMB))),
            ("sgemm_gflops", m.gflops.map(num) ?? .null),
            ("blas_core", .string(m.blasCore)),
            ("isa", .string(m.isa)),
        ]))
    }

    static func textReport(_ m: Measurement, sizeMB: Int) -> String {
        var out = "kernel tier: \(m.isa)   matrix: \(sizeMB) MiB, \(matvecColumns) columns\n"
        out += "read bandwidth: \(fmt(m.read1)) GB/s (1 thread), \(fmt(m.read2)) GB/s (2 threads)\n\n"
        out += "matvec (·x8: rows interleaved by eight, as a loaded model holds the type)\n"
        out += "         1 thread          2 threads         in L2, 1 thread (compute ceiling)\n"
        for r in m.results {
            out += (r.type + (r.layout == "interleaved" ? "·x8" : "")).padding(8)
            out += " \(fmt(r.gbps1)) GB/s (\(pct(r.gbps1 / m.read1)))".padding(18)
            out += "\(fmt(r.gbps2)) GB/s (\(pct(r.gbps2 / m.readBest)))".padding(18)
            out += "\(fmt(r.gbpsCached)) GB/s\n"
        }
        if let tiers = m.results.first?.cachedByTier.map(\.isa), !tiers.isEmpty {
            out += "\nin L2, 1 thread, per tier (GB/s; the tiers this machine runs)\n"
            out += "        " + tiers.map { $0.padding(10) }.joined() + "\n"
            for r in m.results {
                out += (r.type + (r.layout == "interleaved" ? "·x8" : "")).padding(8)
                out += r.cachedByTier.map { fmt($0.gbps).padding(10) }.joined() + "\n"
            }
        }
        out += "\nsgemm (1 thread): " + (m.gflops.map { "\(fmt($0)) GFLOP/s" } ?? "n/a") + ", BLAS core: \(m.blasCore)\n"
        return out
    }

    /// Streaming read of the whole buffer split across the pool; best of `repeats`, in GB/s.
    static func readBandwidth(_ pool: OpaquePointer, _ base: UnsafeMutableRawPointer, _ bytes: Int,
                              repeats: Int = 4) -> Double {
        var task = ReadTask(base: UnsafeRawPointer(base), bytes: bytes, sink: 0)
        let fn: loom_task_fn = { ctx, ith, nth in
            let t = ctx!.assumingMemoryBound(to: ReadTask.self)
            // Whole 128-byte steps per thread, so every thread reads an aligned share.
            let steps = t.pointee.bytes / 128
            let lo = steps * Int(ith) / Int(nth), hi = steps * Int(ith + 1) / Int(nth)
            let v = loom_stream_read(t.pointee.base + lo * 128, (hi - lo) * 128)
            if v == 0x5EED { t.pointee.sink &+= 1 }  // practically never; keeps the result live
        }
        var best = Double.infinity
        for _ in 0..<repeats {
            let t0 = loom_now_seconds()
            withUnsafeMutablePointer(to: &task) { loom_pool_run(pool, fn, $0) }
            best = min(best, loom_now_seconds() - t0)
        }
        return Double(bytes) / best / 1e9
    }

    struct ReadTask {
        let base: UnsafeRawPointer
        let bytes: Int
        var sink: Int
    }

    /// Single-threaded sgemm GFLOP/s for a prompt-sized product (128 tokens × 2048 × 2048).
    static func sgemm() -> (Double?, String) {
        let m = 128, n = 2048, k = 2048
        let a = UnsafeMutablePointer<Float>.allocate(capacity: m * k)
        let b = UnsafeMutablePointer<Float>.allocate(capacity: n * k)
        let c = UnsafeMutablePointer<Float>.allocate(capacity: m * n)
        defer {
            a.deallocate()
            b.deallocate()
            c.deallocate()
        }
        for i in 0..<(m * k) { a[i] = Float(i % 17) * 0.01 }
        for i in 0..<(n * k) { b[i] = Float(i % 13) * 0.01 }
        loom_sgemm(Int64(m), Int64(n), Int64(k), a, Int64(k), b, Int64(k), c, Int64(n))
        var best = Double.infinity
        for _ in 0..<3 {
            let t0 = loom_now_seconds()
            loom_sgemm(Int64(m), Int64(n), Int64(k), a, Int64(k), b, Int64(k), c, Int64(n))
            best = min(best, loom_now_seconds() - t0)
        }
        let core = loom_blas_openblas_available() ? String(cString: loom_blas_core_name()) : "none (Loom's own sgemm)"
        return (2.0 * Double(m * n * k) / best / 1e9, core)
    }

    static func aligned(_ bytes: Int) -> UnsafeMutableRawPointer? {
        var p: UnsafeMutableRawPointer?
        return posix_memalign(&p, 64, bytes) == 0 ? p : nil
    }

    /// Pseudo-random bytes in 0x20…0x3F: every f16/bf16/f32 scale or weight they form is a
    /// normal, finite number, so no format hits denormal or NaN slow paths.
    static func fill(_ p: UnsafeMutableRawPointer, _ bytes: Int) {
        let words = p.bindMemory(to: UInt64.self, capacity: bytes / 8)
        var s: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<(bytes / 8) {
            s ^= s << 13
            s ^= s >> 7
            s ^= s << 17
            words[i] = (s & 0x1F1F_1F1F_1F1F_1F1F) | 0x2020_2020_2020_2020
        }
    }

    static func fmt(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return String(r)
    }

    static func pct(_ v: Double) -> String { "\(Int((v * 100).rounded()))%" }
}
