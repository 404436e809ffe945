import LoomJSON

/// One generated token's log-probability and its most likely alternatives, as requested with
/// `GenerationOptions.logProbabilities` (a Loom extension).
///
/// Its JSON form is OpenAI's `logprobs.content[]` element: `{"token", "logprob", "bytes",
/// "top_logprobs": [{"token", "logprob", "bytes"}…]}`. Executors deliver a list of these under
/// `metadataKey` in a response entry's metadata:
/// - the final metadata of the step's response entry holds one element per generated token,
///   in order (reasoning and tool-call tokens included; the end-of-generation token, which is
///   not output, excluded);
/// - while streaming, the `updateMetadata` sent just before a response text delta holds the
///   elements of exactly the tokens that delta credits, so a relay (such as `loom serve`) can
///   attach them to the delta.
public struct TokenLogProbability: Sendable, Equatable, Hashable, Codable {
    /// A token and its log-probability, without alternatives.
    public struct Alternative: Sendable, Equatable, Hashable, Codable {
        /// The token's text (its bytes decoded as UTF-8; a piece of a multi-byte character
        /// shows as U+FFFD).
        public var token: String
        /// The token's exact UTF-8 bytes.
        public var bytes: [UInt8]
        /// Natural log of the token's probability (≤ 0).
        public var logProbability: Double

        /// An alternative.
        public init(token: String, bytes: [UInt8], logProbability: Double) {
            self.token = token
            self.bytes = bytes
            self.logProbability = logProbability
        }

        enum CodingKeys: String, CodingKey {
            case token, bytes
            case logProbability = "logprob"
        }
    }

    /// The metadata key executors write the list under.
    public static let metadataKey = "logProbabilities"

    /// The generated token's text.
    public var token: String
    /// The generated token's exact UTF-8 bytes.
    public var bytes: [UInt8]
    /// Natural log of the generated token's probability (≤ 0).
    public var logProbability: Double
    /// The most likely tokens at this position, most likely first (as many as requested, fewer
    /// where fewer tokens were possible).
    public var topAlternatives: [Alternative]

    /// A token's entry.
    public init(token: String, bytes: [UInt8], logProbability: Double, topAlternatives: [Alternative]) {
        self.token = token
        self.bytes = bytes
        self.logProbability = logProbability
        self.topAlternatives = topAlternatives
    }

    enum CodingKeys: String, CodingKey {
        case token, bytes
        case logProbability = "logprob"
        case topAlternatives = "top_logprobs"
    }
}

extension TokenLogProbability.Alternative {
    /// The OpenAI-shaped JSON object.
    public var jsonValue: JSONValue {
        .object(JSONObject([("token", .string(token)), ("logprob", .number(JSONNumber(logProbability))),
                            ("bytes", .array(bytes.map { .number(JSONNumber(Int($0))) }))]))
    }

    /// Reads the OpenAI-shaped JSON object; nil when a member is missing or mistyped.
    public init?(jsonValue: JSONValue) {
        guard let token = jsonValue["token"]?.stringValue, let logprob = jsonValue["logprob"]?.doubleValue else { return nil }
        var bytes: [UInt8] = []
        if let list = jsonValue["bytes"]?.arrayValue {
            for b in list {
                guard let i = b.intValue, let byte = UInt8(exactly: i) else { return nil }
                bytes.append(byte)
            }
        } else {
            bytes = Array(token.utf8)
        }
        self.init(token: token, bytes: bytes, logProbability: logprob)
    }
}

extension TokenLogProbability: ConvertibleToGeneratedContent {
    /// The OpenAI-shaped JSON object.
    public var jsonValue: JSONValue {
        .object(JSONObject([("token", .string(token)), ("logprob", .number(JSONNumber(logProbability))),
                            ("bytes", .array(bytes.map { .number(JSONNumber(Int($0))) })),
                            ("top_logprobs", .array(topAlternatives.map(\.jsonValue)))]))
    }

    /// The OpenAI-shaped JSON object as generated content.
    public var generatedContent: GeneratedContent { GeneratedContent(jsonValue: jsonValue) }

    /// Reads the OpenAI-shaped JSON object; nil when a member is missing or mistyped. A missing
    /// `bytes` is taken from the token's text; a missing `top_logprobs` is empty.
    public init?(jsonValue: JSONValue) {
        guard let head = Alternative(jsonValue: jsonValue) else { return nil }
        var top: [Alternative] = []
        if let list = jsonValue["top_logprobs"]?.arrayValue {
            for item in list {
                guard let alternative = Alternative(jsonValue: item) else { return nil }
                top.append(alternative)
            }
        }
        self.init(token: head.token, bytes: head.bytes, logProbability: head.logProbability, topAlternatives: top)
    }

    /// Reads a list written under `metadataKey`; nil when absent or malformed.
    public static func list(in metadata: [String: GeneratedContent]) -> [TokenLogProbability]? {
        guard let items = metadata[metadataKey]?.jsonValue.arrayValue else { return nil }
        var out: [TokenLogProbability] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let entry = TokenLogProbability(jsonValue: item) else { return nil }
            out.append(entry)
        }
        return out
    }
}

extension Transcript.Response {
    /// The per-token log-probabilities the executor wrote into this entry's metadata (see
    /// `TokenLogProbability`); nil when none were requested or reported.
    public var logProbabilities: [TokenLogProbability]? {
        TokenLogProbability.list(in: metadata)
    }
}

extension LanguageModelSession.Response {
    /// Log-probabilities of the generated tokens of the final response entry, when the request
    /// set `GenerationOptions.logProbabilities` and the model reports them; nil otherwise.
    public var logProbabilities: [TokenLogProbability]? {
        let last = transcriptEntries.last { if case .response = $0 { return true }; return false }
        guard case .response(let response)? = last else { return nil }
        return response.logProbabilities
    }
}
