import CTensor
import Engine
import LoomJSON

#if canImport(Glibc)
import Glibc
#endif

/// `loom bench kernels --rows 1,8 -m MODEL`: what a continuous-batching decode step's products
/// cost per batch size.
///
/// A step of B sequences runs every weight matrix of the model once against B activation rows
/// (loom_par_matmul_fused / loom_par_matmul_swiglu, fused as the decode plan fuses them: Q/K/V,
/// attention output, gate/up with SwiGLU, down, then the LM head). The weights stream from
/// memory once per step whatever B is, so the extra rows should cost far less than extra steps:
/// this reports milliseconds per step and per product for each row count, and each row
/// count's time relative to the first.
enum BenchKernelsBatch {
    struct Result {
        let rows: Int
        let threads: Int
        let stepMs: Double
        /// The step's time over the matrices it multiplies.
        let matrixMs: Double
    }

    /// Timed steps per row count and thread count; the best of them is reported.
    static let repetitions = 8

    static func run(_ args: Arguments, rows: [Int]) throws {
        let file = try GGUFFile(path: args.modelPath)
        let description = try ModelDescription(file: file)
        let weights = Weights(file: file, description: description)
        let maxRows = rows.max() ?? 1
        let dim = description.embeddingLength, ff = description.feedForwardLength
        let qLen = description.queryLength, kvLen = description.kvLength
        let maxCols = max(dim, qLen, ff)
        let progress = !args.has("json") && StandardError.isTerminal

        // Outputs for maxRows rows of each product (reused by every block: only the time matters).
        func buffer(_ n: Int) -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: n * maxRows)
            p.initialize(repeating: 0, count: n * maxRows)
            return p
        }
        let q = buffer(qLen), k = buffer(kvLen), v = buffer(kvLen), residual = buffer(dim)
        let gate = buffer(ff), up = buffer(ff), logits = buffer(description.vocabularySize)
        let x = buffer(maxCols)
        defer { for p in [q, k, v, residual, gate, up, logits, x] { p.deallocate() } }
        for i in 0..<(maxCols * maxRows) { x[i] = Float(sin(Double(i) * 0.37)) }

        func part(_ m: WeightMatrix, _ y: UnsafeMutablePointer<Float>, _ ldy: Int, accumulate: Bool = false,
                  bias: UnsafePointer<Float>? = nil) -> loom_matvec_part {
            loom_matvec_part(type: m.type, w: m.data, row_bytes: m.rowBytes, n_rows: Int64(m.rows), y: y,
                             ldy: Int64(ldy), bias: bias, accumulate: accumulate ? 1 : 0)
        }
        // Per block: [q, k, v], [attention output], [gate, up], [down]; then the LM head.
        var blockParts: [[loom_matvec_part]] = []
        for b in weights.blocks {
            blockParts.append([part(b.query, q, qLen, bias: b.queryBias), part(b.key, k, kvLen, bias: b.keyBias),
                               part(b.value, v, kvLen, bias: b.valueBias)])
            blockParts.append([part(b.attentionOutput, residual, dim, accumulate: true)])
            blockParts.append([part(b.ffnGate, gate, ff), part(b.ffnUp, up, ff)])
            blockParts.append([part(b.ffnDown, residual, dim, accumulate: true)])
        }
        let head = part(weights.output, logits, description.vocabularySize)
        let matricesPerStep = 7 * weights.blocks.count + 1

        var results: [Result] = []
        for threads in [1, 2] {
            guard let pool = loom_pool_create(Int32(threads)) else { throw RuntimeError("cannot start the thread pool") }
            defer { loom_pool_destroy(pool) }
            let scratchBytes = loom_par_matmul_fused_scratch_bytes(pool, Int64(maxCols), Int64(maxRows))
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchBytes, alignment: 64)
            defer { scratch.deallocate() }
            func step(_ n: Int) {
                let nb = Int64(n), ldx = Int64(maxCols)
                for i in 0..<weights.blocks.count {
                    blockParts[4 * i].withUnsafeBufferPointer {
                        loom_par_matmul_fused(pool, $0.baseAddress, 3, Int64(dim), x, ldx, nb, scratch)
                    }
                    blockParts[4 * i + 1].withUnsafeBufferPointer {
                        loom_par_matmul_fused(pool, $0.baseAddress, 1, Int64(qLen), x, ldx, nb, scratch)
                    }
                    blockParts[4 * i + 2].withUnsafeBufferPointer {
                        _ = loom_par_matmul_swiglu(pool, $0.baseAddress, $0.baseAddress! + 1, Int64(dim), x, ldx, nb,
                                                   gate, Int64(ff), scratch)
                    }
                    blockParts[4 * i + 3].withUnsafeBufferPointer {
                        loom_par_matmul_fused(pool, $0.baseAddress, 1, Int64(ff), x, ldx, nb, scratch)
                    }
                }
                withUnsafePointer(to: head) { loom_par_matmul_fused(pool, $0, 1, Int64(dim), x, ldx, nb, scratch) }
            }
            // The row counts take turns, step by step, so a host that slows down or speeds up
            // part way through moves every count's best step alike and not their ratio.
            if progress { StandardError.line("batched products: rows \(rows), \(threads) thread(s)…") }
            for n in rows { step(n) }  // warm-up
            var best = [Double](repeating: .infinity, count: rows.count)
            for _ in 0..<repetitions {
                for (i, n) in rows.enumerated() {
                    let t0 = loom_now_seconds()
                    step(n)
                    best[i] = min(best[i], loom_now_seconds() - t0)
                }
            }
            for (i, n) in rows.enumerated() {
                results.append(Result(rows: n, threads: threads, stepMs: best[i] * 1e3,
                                      matrixMs: best[i] * 1e3 / Double(matricesPerStep)))
            }
        }

        let isaName = String(cString: loom_isa_name(loom_isa_active()))
        let modelName = args.modelPath.split(separator: "/").last.map(String.init) ?? args.modelPath
        func baseline(_ r: Result) -> Double {
            results.first { $0.threads == r.threads && $0.rows == rows[0] }.map { r.stepMs / $0.stepMs } ?? 1
        }
        if args.has("json") {
            func num(_ v: Double) -> JSONValue { .number(JSONNumber((v * 1000).rounded() / 1000)) }
            let doc: JSONValue = .object(JSONObject([
                ("model", .string(modelName)),
                ("isa", .string(isaName)),
                ("matrices_per_step", .number(JSONNumber(matricesPerStep))),
                ("batched", .array(results.map { r in
                    .object(JSONObject([
                        ("rows", .number(JSONNumber(r.rows))), ("threads", .number(JSONNumber(r.threads))),
                        ("ms_per_step", num(r.stepMs)), ("ms_per_matrix", num(r.matrixMs)),
                        ("ratio_to_\(rows[0])_rows", num(baseline(r))),
                    ]))
                })),
                // The step at the decode default of 2 threads, keyed by row count.
                ("batch_step_ms", .object(JSONObject(results.filter { $0.threads == 2 }.map { ("\($0.rows)", num($0.stepMs)) }))),
            ]))
            StandardOutput.write(doc.serialized() + "\n")
            return
        }
        var out = "kernel tier: \(isaName)   model: \(modelName), \(matricesPerStep) weight matrices per step\n"
        out += "rows  threads  ms/step   ms/matrix  vs \(rows[0]) row(s)\n"
        for r in results {
            out += "\(r.rows)".padding(6) + "\(r.threads)".padding(9) + fixed(r.stepMs, 2).padding(10)
            out += fixed(r.matrixMs, 3).padding(11) + "\(fixed(baseline(r), 2))x\n"
        }
        StandardOutput.write(out)
    }

    /// `v` rounded to `digits` decimals.
    static func fixed(_ v: Double, _ digits: Int) -> String {
        let scale = Double([1, 10, 100, 1000][min(max(digits, 0), 3)])
        return String((v * scale).rounded() / scale)
    }
}
