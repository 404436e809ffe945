import Engine
import Foundation
import LoomSupport
import Provider

/// What can be learned about a model file without loading its weights (vocabulary markers,
/// template features), cached per file identity so `LocalLanguageModel.capabilities` stays cheap.
enum LocalModelInspection {
    /// Facts read from a file's metadata.
    struct Facts: Sendable {
        /// The reasoning markers the vocabulary holds, if any (e.g. `<think>` / `</think>`).
        var reasoningMarkers: (open: String, close: String)?
        /// Whether the chat template renders a `tools` list itself.
        var templateRendersTools: Bool
    }

    /// Model files whose facts are kept, least recently used evicted first: a process inspects
    /// a few model files, but one that scans a directory of them stays bounded.
    static let cacheCapacity = 256
    private static let cache = Locked(LRUCache<ModelStore.FileIdentity, Facts>(capacity: cacheCapacity))

    /// Marker pairs recognised as reasoning delimiters, in preference order.
    static let reasoningMarkerPairs: [(String, String)] = ReasoningMarkers.known.map { ($0.open, $0.close) }

    /// The facts for the file at `path`; nil when it cannot be read.
    static func facts(path: String) -> Facts? {
        guard let identity = try? ModelStore.FileIdentity(path: path) else { return nil }
        if let known = cache.withLock({ $0.value(for: identity) }) { return known }
        guard let file = try? GGUFFile(path: path) else { return nil }
        let facts = facts(file: file)
        cache.withLock { $0.insert(facts, for: identity) }
        return facts
    }

    /// The facts of an opened file.
    static func facts(file: GGUFFile) -> Facts {
        var markers: (String, String)?
        if let tokens = file.metadata["tokenizer.ggml.tokens"]?.arrayValue {
            var texts = Set<String>()
            for t in tokens {
                if let s = t.stringValue, s.utf8.count <= 24 { texts.insert(s) }
            }
            markers = reasoningMarkerPairs.first { texts.contains($0.0) && texts.contains($0.1) }
        }
        // Tools count as native only when the template really renders them (probed, not grepped).
        let template = try? file.chatTemplate()
        let native = ToolCallDialect.detect(template: template ?? nil).rendersToolsNatively
        return Facts(reasoningMarkers: markers.map { (open: $0.0, close: $0.1) }, templateRendersTools: native)
    }

    /// Capabilities of `variant` over the file at `path`: guided generation and grammar-backed
    /// tool calls need logits (sequential or automatic); the pipelined variant calls tools only
    /// when the template supports them natively; reasoning when the vocabulary has markers;
    /// never vision.
    static func capabilities(path: String, variant: LocalLanguageModel.Variant) -> LanguageModelCapabilities {
        let facts = facts(path: path)
        return capabilities(facts: facts, variant: variant)
    }

    static func capabilities(facts: Facts?, variant: LocalLanguageModel.Variant) -> LanguageModelCapabilities {
        var out: [LanguageModelCapabilities.Capability] = []
        switch variant {
        case .sequential, .automatic:
            out += [.guidedGeneration, .toolCalling]
        case .pipelined:
            if facts?.templateRendersTools == true { out.append(.toolCalling) }
        }
        if facts?.reasoningMarkers != nil { out.append(.reasoning) }
        return LanguageModelCapabilities(out)
    }
}
