import Provider

/// What a response's transcript entries say about its generation: the last response entry's usage
/// and metadata (the local backend's timings and guided-decoding counts), for the commands that
/// report them (`loom run --json`, the guided benchmarks).
struct ResponseFigures {
    /// The usage of the last response entry that carried one.
    private(set) var usage: Transcript.Usage?
    /// The last response entry's metadata.
    private(set) var metadata: [String: GeneratedContent] = [:]

    init(_ entries: ArraySlice<Transcript.Entry>) {
        for entry in entries {
            if case .response(let r) = entry {
                usage = r.usage ?? usage
                metadata = r.metadata
            }
        }
    }

    /// A numeric metadata value (`tokensPerSecond`, `forcedTokens`, …), or nil.
    func number(_ key: String) -> Double? {
        guard case .number(let n)? = metadata[key]?.jsonValue else { return nil }
        return Double(n.description)
    }

    /// Output tokens of the response (0 when no usage was reported).
    var outputTokens: Int { usage?.output.totalTokenCount ?? 0 }
}
