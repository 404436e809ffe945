/// Why a model file could not be loaded.
///
/// Every problem found while reading a GGUF file or deriving a model from it is reported as one
/// of these cases, naming the offending key or tensor and, where it applies, the byte offset in
/// the file. Loading never traps on bad input.
public enum ModelLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened, sized or mapped.
    case unreadable(path: String, reason: String)
    /// The first four bytes are not `GGUF`.
    case badMagic(found: UInt32)
    /// A GGUF version Loom does not read (it reads 2 and 3).
    case unsupportedVersion(UInt32)
    /// The file ends before a field that starts at `offset` could be read.
    case truncated(offset: Int, needed: Int, what: String)
    /// A count or length that cannot be right (larger than the bytes left, or absurd).
    case implausibleSize(offset: Int, what: String, value: UInt64)
    /// A metadata value type id outside the GGUF specification.
    case unknownValueType(offset: Int, key: String, type: UInt32)
    /// Arrays nested deeper than Loom accepts.
    case nestingTooDeep(offset: Int, key: String)
    /// The same metadata key appears twice.
    case duplicateKey(String)
    /// The same tensor name appears twice.
    case duplicateTensor(String)
    /// A metadata key has a type other than the one the format requires.
    case wrongValueType(key: String, expected: String, found: String)
    /// A required metadata key is absent.
    case missingKey(String)
    /// A tensor type id Loom cannot compute with (unknown, removed, or not implemented).
    case unknownTensorType(tensor: String, type: UInt32)
    /// A tensor whose shape is invalid for its type (zero or too many dimensions, a row length
    /// not divisible by the block size, an element count that overflows).
    case badTensorShape(tensor: String, shape: [UInt64], reason: String)
    /// A tensor whose data is misaligned, outside the file, or overlapping another tensor.
    case badTensorData(tensor: String, offset: UInt64, reason: String)
    /// A tensor the architecture needs is absent.
    case missingTensor(String)
    /// A tensor exists but its shape does not match the hyper-parameters.
    case tensorShapeMismatch(tensor: String, expected: [Int], found: [Int])
    /// The architecture named by `general.architecture` is not supported.
    case unsupportedArchitecture(String)
    /// Hyper-parameters that contradict each other or the tensors.
    case inconsistentHyperparameters(String)
    /// Tokenizer metadata that cannot describe a working tokenizer.
    case badTokenizer(String)
    /// `block_count` names more transformer blocks than the file has tensors for.
    case missingBlocks(declared: Int, present: Int)
    /// A special-token id key (`tokenizer.ggml.*_token_id`) points outside the vocabulary.
    case specialTokenOutOfRange(key: String, id: Int, vocabularySize: Int)
    /// The file asks for a feature Loom does not implement (e.g. a RoPE scaling type).
    case unsupportedFeature(String)
    /// A metadata key whose value the forward pass cannot honour: running the file would only
    /// approximate the model.
    case unsupportedMetadata(key: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .badMagic(let found): return "not a GGUF file (magic 0x\(String(found, radix: 16)))"
        case .unsupportedVersion(let v): return "unsupported GGUF version \(v) (Loom reads 2 and 3)"
        case .truncated(let offset, let needed, let what):
            return "file truncated at offset \(offset): \(what) needs \(needed) more bytes"
        case .implausibleSize(let offset, let what, let value):
            return "implausible \(what) \(value) at offset \(offset)"
        case .unknownValueType(let offset, let key, let type):
            return "unknown metadata value type \(type) for key '\(key)' at offset \(offset)"
        case .nestingTooDeep(let offset, let key): return "arrays nested too deeply in '\(key)' at offset \(offset)"
        case .duplicateKey(let key): return "duplicate metadata key '\(key)'"
        case .duplicateTensor(let name): return "duplicate tensor '\(name)'"
        case .wrongValueType(let key, let expected, let found):
            return "metadata key '\(key)' should be \(expected), found \(found)"
        case .missingKey(let key): return "missing metadata key '\(key)'"
        case .unknownTensorType(let tensor, let type): return "tensor '\(tensor)' has unsupported type id \(type)"
        case .badTensorShape(let tensor, let shape, let reason):
            return "tensor '\(tensor)' has invalid shape \(shape): \(reason)"
        case .badTensorData(let tensor, let offset, let reason):
            return "tensor '\(tensor)' data at offset \(offset): \(reason)"
        case .missingTensor(let name): return "missing tensor '\(name)'"
        case .tensorShapeMismatch(let tensor, let expected, let found):
            return "tensor '\(tensor)' has shape \(found), expected \(expected)"
        case .unsupportedArchitecture(let arch): return "unsupported architecture '\(arch)'"
        case .inconsistentHyperparameters(let why): return "inconsistent hyper-parameters: \(why)"
        case .badTokenizer(let why): return "bad tokenizer metadata: \(why)"
        case .missingBlocks(let declared, let present):
            return "block_count is \(declared) but the file holds tensors for \(present) blocks"
        case .specialTokenOutOfRange(let key, let id, let vocabularySize):
            return "\(key) = \(id) is outside the vocabulary of \(vocabularySize) tokens"
        case .unsupportedFeature(let what): return "unsupported: \(what)"
        case .unsupportedMetadata(let key, let reason): return "unsupported metadata '\(key)': \(reason)"
        }
    }
}
