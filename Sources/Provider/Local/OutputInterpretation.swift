/// One interpreted piece of model output.
enum OutputPiece: Equatable {
    /// Response text.
    case text(String)
    /// Reasoning text (between the model's reasoning markers).
    case reasoning(String)
    /// A complete tool call: the tool's name and its arguments as JSON text.
    case toolCall(name: String, arguments: String)
}

/// Splits streamed output into response text and reasoning at the model's markers
/// (`<think>` … `</think>`), holding back only text that may be the start of a marker so that
/// both streams stay incremental.
struct ReasoningSplitter {
    let open: String
    let close: String
    private(set) var inReasoning: Bool
    private var held = ""

    /// - Parameter startsInReasoning: the prompt already opened the reasoning block (templates
    ///   that end the generation prompt with `<think>`).
    init(open: String, close: String, startsInReasoning: Bool = false) {
        self.open = open
        self.close = close
        inReasoning = startsInReasoning
    }

    mutating func consume(_ text: String) -> [OutputPiece] {
        held += text
        var out: [OutputPiece] = []
        while true {
            let marker = inReasoning ? close : open
            if let r = held.range(of: marker) {
                let before = String(held[..<r.lowerBound])
                if !before.isEmpty { out.append(inReasoning ? .reasoning(before) : .text(before)) }
                held = String(held[r.upperBound...])
                inReasoning.toggle()
                continue
            }
            // Keep back a tail that could begin the marker.
            var keep = min(marker.count - 1, held.count)
            while keep > 0, !held.hasSuffix(marker.prefix(keep)) { keep -= 1 }
            let cut = held.index(held.endIndex, offsetBy: -keep)
            let emit = String(held[..<cut])
            if !emit.isEmpty { out.append(inReasoning ? .reasoning(emit) : .text(emit)) }
            held = String(held[cut...])
            return out
        }
    }

    mutating func finish() -> [OutputPiece] {
        defer { held = "" }
        guard !held.isEmpty else { return [] }
        return [inReasoning ? .reasoning(held) : .text(held)]
    }
}
