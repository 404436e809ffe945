/// `loom bench`: benchmarks. `loom bench kernels …` measures the C kernels against the
/// machine's memory bandwidth (BenchKernelsCommand.swift); anything else is the model
/// benchmark, which parses its own options.
enum BenchCommand: LoomCommand {
    static let name = "bench"
    static let summary = "benchmark the kernels (bench kernels) or a model"
    static let usage = BenchModel.usage + """
               loom bench kernels [--json] [--isa scalar|avx2|avx512] [--size-mb N]
               loom bench kernels --rows N[,N…] [-m MODEL] [--json] [--isa TIER]
          kernels            read bandwidth, matvec weight GB/s per type (1 and 2 threads, and
                             in L2 on 1 thread) in the layout a loaded model decodes with
                             (interleaved by eight where the type has that form), the in-L2 rate
                             at every tier this machine runs side by side, single-threaded
                             sgemm GFLOP/s
          --json             print {"read_bandwidth_gbps", "matvec": [{"type", "layout", "gbps", "share",
                             "gbps_1thread", "share_1thread", "gbps_in_cache_1thread",
                             "gbps_in_cache_by_tier": {"scalar", "avx2", "avx512"}}], "sgemm_gflops",
                             "blas_core", "isa"} (gbps/share: 2 threads; by tier: the tiers that run)
          --isa TIER         kernel tier to measure, alone (default: the best this machine runs, and
                             every runnable tier's in-L2 rate beside it)
          --size-mb N        weight matrix size per type in MiB (default 256, well above the LLC)
          --rows N[,N…]      instead: a continuous-batching decode step's fused products over the
                             model's matrices (-m, default models/default.gguf) for each number
                             of activation rows, on 1 and 2 threads: the best of 8 steps, the
                             counts taking turns step by step; ms per step and per matrix, and
                             each count's time relative to the first; --json: {"model", "isa",
                             "matrices_per_step", "batched": [{"rows", "threads", "ms_per_step",
                             "ms_per_matrix", "ratio_to_R_rows"}], "batch_step_ms": {"R": ms…}
                             (2 threads, the decode default)}

        """

    static func run(_ arguments: [String]) async throws {
        if arguments.first == "kernels" {
            let args = try Arguments(Array(arguments.dropFirst()), flags: ["json"],
                                     options: ["isa", "size-mb", "rows", "model"], aliases: ["m": "model"])
            if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            if let rows = try args.ints("rows", in: 1...256) {
                if let isa = args.value("isa") { try BenchKernels.selectTier(isa) }
                try BenchKernelsBatch.run(args, rows: rows)
                return
            }
            if args.value("model") != nil { throw UsageError("-m/--model goes with --rows") }
            try BenchKernels.run(args)
            return
        }
        try await BenchModel.run(arguments)
    }
}
