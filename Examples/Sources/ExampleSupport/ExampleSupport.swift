import Foundation
import Loom

/// The model file an example runs: the first argument, else `$LOOM_MODEL`, else the repository's
/// `models/default.gguf` (examples run from the repository root or from `Examples/`).
public func exampleModelPath() -> String {
    if let path = CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("-") }) { return path }
    if let env = ProcessInfo.processInfo.environment["LOOM_MODEL"], !env.isEmpty { return env }
    for candidate in ["models/default.gguf", "../models/default.gguf"]
    where FileManager.default.fileExists(atPath: candidate) {
        return candidate
    }
    return "models/default.gguf"
}

/// Writes a status line to standard error (answers go to standard output).
public func printStatus(_ text: String) {
    fflush(nil)  // flush stdout first, so answers and status lines keep their order on one terminal
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// One line about how a request went, from what the executor recorded in the transcript:
/// `label: N tokens, R tok/s, TTFT T ms, C cached prompt tokens`.
public func performanceLine(_ label: String, _ entries: some Collection<Transcript.Entry>) -> String {
    var generated = 0
    var rate: Double?, ttft: Double?, cached: Int?
    for entry in entries {
        let metadata: [String: GeneratedContent]
        let usage: Transcript.Usage?
        switch entry {
        case .response(let r): (metadata, usage) = (r.metadata, r.usage)
        case .toolCalls(let c): (metadata, usage) = (c.metadata, c.usage)
        default: continue
        }
        generated += usage?.output.totalTokenCount ?? 0
        if let usage { cached = usage.input.cachedTokenCount }
        if case .number(let n)? = metadata["tokensPerSecond"]?.jsonValue { rate = n.doubleValue }
        if ttft == nil, case .number(let n)? = metadata["timeToFirstToken"]?.jsonValue { ttft = n.doubleValue }
    }
    var parts = ["\(generated) tokens"]
    parts.append(rate.map { String(format: "%.1f tok/s", $0) } ?? "tok/s not reported")
    if let ttft { parts.append(String(format: "TTFT %.0f ms", ttft * 1000)) }
    if let cached { parts.append("\(cached) cached prompt tokens") }
    return "\(label): " + parts.joined(separator: ", ")
}

/// Writes streamed text to standard output at once (`print` would hold it until a newline).
public func writeStreamed(_ text: some StringProtocol) {
    FileHandle.standardOutput.write(Data(String(text).utf8))
}
