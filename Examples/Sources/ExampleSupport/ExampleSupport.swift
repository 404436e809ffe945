import Foundation

/// The model file an example runs: the first argument, else `$LOOM_MODEL`, else the repository's
/// `models/default.gguf` (examples are run from the repository root or from `Examples/`).
public func exampleModelPath() -> String {
    let args = CommandLine.arguments.dropFirst()
    if let path = args.first(where: { !$0.hasPrefix("-") }) { return path }
    if let env = ProcessInfo.processInfo.environment["LOOM_MODEL"], !env.isEmpty { return env }
    for candidate in ["models/default.gguf", "../models/default.gguf"]
    where FileManager.default.fileExists(atPath: candidate) {
        return candidate
    }
    return "models/default.gguf"
}

/// Measures one answer: time to the first streamed piece and generated tokens per second.
public struct Stopwatch: Sendable {
    private let start = Date()
    private var first: Date?

    /// Starts timing now.
    public init() {}

    /// Call when the first piece of the answer arrives (later calls are ignored).
    public mutating func markFirstToken() {
        if first == nil { first = Date() }
    }

    /// Seconds from the start to the first piece (nil before it).
    public var timeToFirstToken: Double? { first.map { $0.timeIntervalSince(start) } }

    /// `N tokens in S s (R tok/s, TTFT T ms)` for `tokens` generated tokens. The rate counts
    /// decode time only (after the first token), as llama.cpp reports it.
    public func summary(tokens: Int) -> String {
        let total = Date().timeIntervalSince(start)
        let ttft = timeToFirstToken ?? total
        let decode = total - ttft
        let rate = tokens > 1 && decode > 0 ? Double(tokens - 1) / decode : 0
        return "\(tokens) tokens in \(format(total)) s (\(format(rate)) tok/s, TTFT \(Int((ttft * 1000).rounded())) ms)"
    }

    private func format(_ x: Double) -> String { String(format: "%.1f", x) }
}

/// Writes to standard error (progress and timings stay off stdout, which carries the answers).
public func printStatus(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
