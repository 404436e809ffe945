import FuzzDriver
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The entry point every fuzz executable calls from its `main.swift`.
public enum FuzzEntry {
    /// The target's per-input body; set once before the driver starts, then only read.
    nonisolated(unsafe) static var body: (([UInt8]) -> Void)?

    /// Runs `body` on fuzzer-generated inputs and exits.
    ///
    /// With libFuzzer linked in (`-sanitize=fuzzer`), the command line is libFuzzer's
    /// (`CORPUS_DIR -max_total_time=…`); otherwise the deterministic `MutationHarness` runs with
    /// the same basic flags. `body` must check its own invariants and `fatalError` on a violation,
    /// so either driver records the input as a finding.
    public static func run(_ body: @escaping ([UInt8]) -> Void) -> Never {
        FuzzEntry.body = body
        let callback: loom_fuzz_callback = { data, size in
            let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
            FuzzEntry.body!(bytes)
            return 0
        }
        if loom_fuzz_has_libfuzzer() != 0 {
            exit(loom_fuzz_run_libfuzzer(CommandLine.argc, CommandLine.unsafeArgv, callback))
        }
        var harness = MutationHarness(arguments: Array(CommandLine.arguments.dropFirst()))
        exit(harness.run(body))
    }

    /// Stops the process with a message naming the violated property (a fuzz finding).
    public static func violation(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) -> Never {
        fatalError("fuzz invariant violated: \(message())", file: file, line: line)
    }
}
