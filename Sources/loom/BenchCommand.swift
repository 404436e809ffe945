/// `loom bench`: benchmarks. The first positional picks which one; `kernels` measures the C
/// kernels against the machine's memory bandwidth (BenchKernelsCommand.swift).
enum BenchCommand: LoomCommand {
    static let name = "bench"
    static let summary = "benchmark the kernels (bench kernels) or a model"
    static let usage = """
        usage: loom bench kernels [--json] [--isa scalar|avx2|avx512] [--size-mb N]
          kernels            read bandwidth, matvec weight GB/s per type (1 and 2 threads), sgemm
          --json             print {"read_bandwidth_gbps", "matvec": [{"type", "gbps", "share",
                             "gbps_1thread", "share_1thread", "gbps_in_cache_1thread"}],
                             "sgemm_gflops", "blas_core", "isa"} (gbps/share: 2 threads)
          --isa TIER         kernel tier to measure (default: the best this machine runs)
          --size-mb N        weight matrix size per type in MiB (default 256, well above the LLC)

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, flags: ["json"], options: ["isa", "size-mb"])
        guard let which = args.positionals.first else { throw UsageError("missing benchmark name (kernels)") }
        if args.positionals.count > 1 { throw UsageError("unexpected argument '\(args.positionals[1])'") }
        switch which {
        case "kernels":
            try BenchKernels.run(args)
        default:
            // Hook for the model benchmark (pp/tg), which lives in its own file when it exists.
            throw UsageError("model benchmark not available yet ('\(which)'); try 'loom bench kernels'")
        }
    }
}
