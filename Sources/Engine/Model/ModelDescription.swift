/// A decoder-only transformer's hyper-parameters, read from a GGUF file's metadata and checked
/// against its tensor table.
///
/// `init(file:)` is the only place model files are interpreted: once it returns, every tensor the
/// forward pass needs exists with the shape these numbers imply, so `Weights` and `Transformer`
/// never re-validate. Keys follow the GGUF specification (`[arch].embedding_length`, …).
public struct ModelDescription: Codable, Sendable, Equatable {
    /// `general.architecture` (`llama`, `qwen2`, `qwen3`, `phi3`, `gemma3`).
    public var architecture: String
    /// Width of the residual stream (`embedding_length`).
    public var embeddingLength: Int
    /// Transformer blocks (`block_count`).
    public var blockCount: Int
    /// Query heads (`attention.head_count`).
    public var headCount: Int
    /// Key/value heads (`attention.head_count_kv`, default `headCount`); divides `headCount`.
    public var kvHeadCount: Int
    /// Components per head (`attention.key_length`, default `embeddingLength / headCount`).
    public var headDimension: Int
    /// Hidden width of the SwiGLU feed-forward (`feed_forward_length`).
    public var feedForwardLength: Int
    /// Training context (`context_length`).
    public var contextLength: Int
    /// Rows of `token_embd.weight`.
    public var vocabularySize: Int
    /// RMSNorm epsilon (`attention.layer_norm_rms_epsilon`).
    public var normEpsilon: Double
    /// Rotary position embedding.
    public var rope: RoPEParameters
    /// True when the file has no `output.weight`, so the LM head is `token_embd.weight`.
    public var tiedOutput: Bool
    /// True when blocks carry Q/K/V biases (qwen2).
    public var hasAttentionBias: Bool
    /// The architecture's optional and fused block tensors.
    public var blockTensors: BlockTensors
    /// Positions a local layer attends to (`attention.sliding_window`), 0 when every layer is
    /// global.
    public var slidingWindow: Int
    /// Per block, whether it is local (sliding-window); empty when every layer is global.
    public var localLayers: [Bool]
    /// RoPE base of local layers (`rope.freq_base_swa`, default 10000); they are not rope-scaled.
    public var localRoPEBase: Double
    /// Multiplier on q·k (1/√head_dim for most architectures).
    public var attentionScale: Double
    /// Factor on the token embeddings (√embedding_length for gemma3, else 1).
    public var embeddingScale: Double
    /// `final_logit_softcapping`: logits become cap·tanh(logit/cap); 0 when the file has none.
    public var finalLogitSoftcap: Double
    /// Special-token ids, validated against the vocabulary.
    public var specialTokens: SpecialTokens

    /// Width of the query projection output.
    public var queryLength: Int { headCount * headDimension }
    /// Width of the key (and value) projection output.
    public var kvLength: Int { kvHeadCount * headDimension }
    /// Blocks that attend to the last `slidingWindow` positions only (0 when every layer is
    /// global): a scheduler keeps their keys and values for the window, not the whole context.
    public var localLayerCount: Int { slidingWindow > 0 ? localLayers.reduce(0) { $0 + ($1 ? 1 : 0) } : 0 }

    /// Derives and validates the description of the model in `file`.
    public init(file: GGUFFile) throws(ModelLoadError) {
        let meta = MetadataReader(file: file)
        guard let archName = try meta.string("general.architecture") else { throw .missingKey("general.architecture") }
        guard let arch = ModelArchitectures.named(archName) else { throw .unsupportedArchitecture(archName) }
        let p = archName + "."
        architecture = archName

        embeddingLength = try meta.requiredInt(p + "embedding_length")
        blockCount = try meta.requiredInt(p + "block_count")
        headCount = try meta.requiredInt(p + "attention.head_count")
        kvHeadCount = try meta.int(p + "attention.head_count_kv") ?? headCount
        feedForwardLength = try meta.requiredInt(p + "feed_forward_length")
        contextLength = try meta.int(p + "context_length") ?? 2048
        normEpsilon = try meta.double(p + "attention.layer_norm_rms_epsilon") ?? arch.defaultNormEpsilon

        func bad(_ why: String) -> ModelLoadError { .inconsistentHyperparameters(why) }
        guard embeddingLength > 0 else { throw bad("\(p)embedding_length is \(embeddingLength)") }
        guard blockCount > 0 else { throw bad("\(p)block_count is \(blockCount)") }
        guard headCount > 0 else { throw bad("\(p)attention.head_count is \(headCount)") }
        guard kvHeadCount > 0, headCount % kvHeadCount == 0 else {
            throw bad("\(p)attention.head_count_kv \(kvHeadCount) does not divide head_count \(headCount)")
        }
        guard feedForwardLength > 0 else { throw bad("\(p)feed_forward_length is \(feedForwardLength)") }
        guard contextLength > 0 else { throw bad("\(p)context_length is \(contextLength)") }
        guard normEpsilon.isFinite, normEpsilon >= 0 else { throw bad("RMS epsilon \(normEpsilon)") }

        if let keyLength = try meta.int(p + "attention.key_length") {
            headDimension = keyLength
        } else {
            guard embeddingLength % headCount == 0 else {
                throw bad("embedding_length \(embeddingLength) is not a multiple of head_count \(headCount)")
            }
            headDimension = embeddingLength / headCount
        }
        let valueLength = try meta.int(p + "attention.value_length") ?? headDimension
        guard headDimension > 0, headDimension % 2 == 0 else { throw bad("head dimension \(headDimension) must be even and positive") }
        guard valueLength == headDimension else {
            throw .unsupportedFeature("attention.value_length \(valueLength) differs from key_length \(headDimension)")
        }
        blockTensors = arch.blockTensors
        attentionScale = arch.attentionScale(headDimension: headDimension, embeddingLength: embeddingLength,
                                             headCount: headCount, blockCount: blockCount)
        embeddingScale = arch.embeddingScale(width: embeddingLength)

        // Sliding window (gemma3's local layers; declared but not applied by phi3, as llama.cpp does).
        let windowKey = p + "attention.sliding_window"
        let window = try meta.int(windowKey) ?? 0
        guard window >= 0 else { throw bad("\(windowKey) is \(window)") }
        slidingWindow = 0
        localLayers = []
        localRoPEBase = 10000
        if window > 0 {
            switch arch.slidingWindow {
            case .refused:
                throw .unsupportedMetadata(key: windowKey, reason: "\(archName) blocks have no sliding-window attention")
            case .ignored:
                break
            case .applied:
                slidingWindow = window
                localLayers = try Self.localLayers(meta, key: p + "attention.sliding_window_pattern", blocks: blockCount)
                localRoPEBase = try meta.double(p + "rope.freq_base_swa") ?? 10000
                guard localRoPEBase.isFinite, localRoPEBase > 0 else { throw bad("\(p)rope.freq_base_swa \(localRoPEBase)") }
            }
        }
        finalLogitSoftcap = try meta.double(p + "final_logit_softcapping") ?? 0
        guard finalLogitSoftcap.isFinite, finalLogitSoftcap >= 0 else {
            throw bad("\(p)final_logit_softcapping \(finalLogitSoftcap)")
        }

        // RoPE.
        let ropeDims = try meta.int(p + "rope.dimension_count") ?? headDimension
        guard ropeDims > 0, ropeDims % 2 == 0, ropeDims <= headDimension else {
            throw bad("rope.dimension_count \(ropeDims) must be even and at most the head dimension \(headDimension)")
        }
        let base = try meta.double(p + "rope.freq_base") ?? arch.defaultRoPEBase
        guard base.isFinite, base > 0 else { throw bad("rope.freq_base \(base)") }
        var scale = 1.0
        let hasLong = file.tensor(named: TensorName.ropeFactorsLong) != nil
        let hasShort = file.tensor(named: TensorName.ropeFactorsShort) != nil
        guard hasLong == hasShort else {
            throw .missingTensor(hasLong ? TensorName.ropeFactorsShort : TensorName.ropeFactorsLong)
        }
        let hasLongShort = hasLong
        let hasFreqs = file.tensor(named: TensorName.ropeFrequencies) != nil
        guard !(hasLongShort && hasFreqs) else {
            throw .inconsistentHyperparameters("both rope_freqs and rope_factors_long/short tensors")
        }
        let scalingType = try meta.string(p + "rope.scaling.type")
        switch scalingType {
        case nil, "none":
            // Older converters wrote a bare linear factor.
            scale = try meta.double(p + "rope.scale_linear") ?? 1
        case "linear":
            scale = try meta.double(p + "rope.scaling.factor") ?? 1
        case "longrope":
            // Phi-3's LongRoPE: the long/short factor tensors carry the scaling.
            guard hasLongShort else {
                throw .unsupportedMetadata(key: p + "rope.scaling.type",
                                           reason: "longrope without rope_factors_long/short tensors")
            }
            scale = try meta.double(p + "rope.scaling.factor") ?? 1
        case let other?:
            throw .unsupportedFeature("rope.scaling.type '\(other)'")
        }
        if scale == 0 { scale = 1 }  // llama.cpp treats a zero factor as "unset"
        guard scale.isFinite, scale > 0 else { throw bad("rope scaling factor \(scale)") }
        let attentionFactor = try meta.double(p + "rope.scaling.attn_factor") ?? 1
        guard attentionFactor.isFinite, attentionFactor > 0 else { throw bad("\(p)rope.scaling.attn_factor \(attentionFactor)") }
        var originalContext: Int?
        if hasLongShort {
            let key = p + "rope.scaling.original_context_length"
            originalContext = try meta.int(key) ?? contextLength
            guard originalContext! > 0 else { throw bad("\(key) is \(originalContext!)") }
        }
        rope = RoPEParameters(style: arch.ropeStyle, dimensionCount: ropeDims, base: base, linearScale: scale,
                              hasFrequencyFactors: hasFreqs, attentionFactor: attentionFactor,
                              originalContextLength: originalContext)

        // Vocabulary: the embedding's row count, which the tokenizer must agree with.
        guard let embd = file.tensor(named: TensorName.tokenEmbedding) else { throw .missingTensor(TensorName.tokenEmbedding) }
        guard embd.shape.count == 2, embd.shape[0] == embeddingLength else {
            throw .tensorShapeMismatch(tensor: embd.name, expected: [embeddingLength, embd.shape.count > 1 ? embd.shape[1] : 0],
                                       found: embd.shape)
        }
        vocabularySize = embd.shape[1]
        if let n = meta.arrayCount("tokenizer.ggml.tokens"), n != vocabularySize {
            throw bad("tokenizer.ggml.tokens has \(n) entries but token_embd.weight has \(vocabularySize) rows")
        }
        if let n = try meta.int(p + "vocab_size"), n != vocabularySize {
            throw bad("\(p)vocab_size is \(n) but token_embd.weight has \(vocabularySize) rows")
        }
        specialTokens = try SpecialTokens.read(meta, vocabularySize: vocabularySize)
        tiedOutput = file.tensor(named: TensorName.output) == nil

        switch arch.attentionBias {
        case .required: hasAttentionBias = true
        case .absent: hasAttentionBias = false
        case .optional: hasAttentionBias = file.tensor(named: TensorName.block(0, TensorName.queryBias)) != nil
        }

        // block_count may not exceed the blocks the file holds.
        var present = 0
        while present < blockCount, file.tensor(named: TensorName.block(present, TensorName.attentionNorm)) != nil {
            present += 1
        }
        if present < blockCount {
            // A block with some tensors but not attn_norm is a missing tensor, not a missing block.
            let anyTensor = file.tensors.contains { $0.name.hasPrefix("blk.\(present).") }
            if anyTensor { throw .missingTensor(TensorName.block(present, TensorName.attentionNorm)) }
            throw .missingBlocks(declared: blockCount, present: present)
        }
        try validateTensors(in: file)
    }

    /// Every tensor the forward pass reads, with the GGUF shape (`[ne0, ne1]`) it must have.
    public func expectedTensors() -> [(name: String, shape: [Int])] {
        let d = embeddingLength
        var list: [(String, [Int])] = [(TensorName.tokenEmbedding, [d, vocabularySize]), (TensorName.outputNorm, [d])]
        if !tiedOutput { list.append((TensorName.output, [d, vocabularySize])) }
        if rope.hasFrequencyFactors { list.append((TensorName.ropeFrequencies, [rope.dimensionCount / 2])) }
        if rope.originalContextLength != nil {
            list.append((TensorName.ropeFactorsLong, [rope.dimensionCount / 2]))
            list.append((TensorName.ropeFactorsShort, [rope.dimensionCount / 2]))
        }
        for b in 0..<blockCount {
            func add(_ suffix: String, _ shape: [Int]) { list.append((TensorName.block(b, suffix), shape)) }
            add(TensorName.attentionNorm, [d])
            if blockTensors.contains(.fusedQKV) {
                add(TensorName.queryKeyValue, [d, queryLength + 2 * kvLength])
            } else {
                add(TensorName.query, [d, queryLength])
                add(TensorName.key, [d, kvLength])
                add(TensorName.value, [d, kvLength])
            }
            if blockTensors.contains(.headNorms) {
                add(TensorName.queryNorm, [headDimension])
                add(TensorName.keyNorm, [headDimension])
            }
            if blockTensors.contains(.postNorms) {
                add(TensorName.postAttentionNorm, [d])
                add(TensorName.postFFNNorm, [d])
            }
            if hasAttentionBias {
                add(TensorName.queryBias, [queryLength])
                add(TensorName.keyBias, [kvLength])
                add(TensorName.valueBias, [kvLength])
            }
            add(TensorName.attentionOutput, [queryLength, d])
            add(TensorName.ffnNorm, [d])
            if blockTensors.contains(.fusedGateUp) {
                add(TensorName.ffnUp, [d, 2 * feedForwardLength])
            } else {
                add(TensorName.ffnGate, [d, feedForwardLength])
                add(TensorName.ffnUp, [d, feedForwardLength])
            }
            add(TensorName.ffnDown, [feedForwardLength, d])
        }
        return list
    }

    /// Which blocks are local: `sliding_window_pattern` as a period P (block i is local iff
    /// i mod P < P − 1; P = 0 makes every block local; default 6, llama.cpp's) or as a bool per
    /// block.
    private static func localLayers(_ meta: MetadataReader, key: String, blocks: Int) throws(ModelLoadError) -> [Bool] {
        if let value = meta.file.metadata[key], let array = value.arrayValue {
            guard array.count >= blocks else {
                throw .inconsistentHyperparameters("\(key) lists \(array.count) layers, block_count is \(blocks)")
            }
            var local: [Bool] = []
            for element in array.prefix(blocks) {
                guard let b = element.boolValue else {
                    throw .wrongValueType(key: key, expected: "integer or array of bool", found: element.type.name)
                }
                local.append(b)
            }
            return local
        }
        let period = try meta.int(key) ?? 6
        guard period >= 0 else { throw .inconsistentHyperparameters("\(key) is \(period)") }
        return (0..<blocks).map { period == 0 || $0 % period < period - 1 }
    }

    private func validateTensors(in file: GGUFFile) throws(ModelLoadError) {
        for (name, shape) in expectedTensors() {
            guard let t = file.tensor(named: name) else { throw .missingTensor(name) }
            // GGUF writers may keep trailing unit dimensions; they do not change the layout.
            var found = t.shape
            while found.count > shape.count, found.last == 1 { found.removeLast() }
            guard found == shape else { throw .tensorShapeMismatch(tensor: name, expected: shape, found: t.shape) }
        }
    }
}
