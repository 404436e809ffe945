import LocalBackend
import Provider

/// What a response's transcript entries say about its generation: the last response entry's usage
/// and metadata (the local backend's timings and guided-decoding counts), for the commands that
/// report them (`loom run --json`, the guided benchmarks).
struct ResponseFigures {
    /// The usage of the last response entry that carried one.
    private(set) var usage: Transcript.Usage?
    /// The last response entry's metadata, as the local backend writes it.
    let local: LocalGenerationMetadata

    init(_ entries: ArraySlice<Transcript.Entry>) {
        for entry in entries {
            if case .response(let r) = entry { usage = r.usage ?? usage }
        }
        local = LocalGenerationMetadata(entries: entries)
    }

    /// Output tokens of the response (0 when no usage was reported).
    var outputTokens: Int { usage?.output.totalTokenCount ?? 0 }
}
