/// A model file loaded for inference: the mapping, its validated description and the weight
/// views. Immutable and shared by every `Transformer` (sequence) that runs it.
public final class Model: Sendable {
    /// The mapped GGUF file.
    public let file: GGUFFile
    /// Hyper-parameters, validated against the tensors.
    public let config: ModelDescription
    /// Views of the tensors.
    public let weights: Weights

    /// Maps, parses and validates the GGUF file at `path`.
    public convenience init(path: String) throws(ModelLoadError) {
        try self.init(file: GGUFFile(path: path))
    }

    /// Validates and binds an already mapped file.
    public init(file: GGUFFile) throws(ModelLoadError) {
        self.file = file
        config = try ModelDescription(file: file)
        weights = Weights(file: file, description: config)
    }
}
