/// Why a prompt-cache file was not loaded. Each is counted and warned about once per file;
/// none stops the request, which evaluates the block instead.
public enum PromptCacheRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// Shorter or longer than its header says: a write that did not finish, or damage.
    case truncated
    /// Does not start with the format's magic bytes.
    case notACacheFile
    /// Written by a format version this build does not read.
    case unsupportedVersion(UInt32)
    /// Computed with another model file.
    case foreignModel
    /// Computed with another KV element type or block layout.
    case foreignLayout
    /// Holds a different prefix than the one asked for (a hash collision or a misplaced file).
    case differentPrefix
    /// The header or the keys and values do not match their checksum.
    case checksumMismatch
    /// The file could not be read.
    case unreadable(errno: Int32)

    public var description: String {
        switch self {
        case .truncated: "truncated"
        case .notACacheFile: "not a prompt-cache file"
        case .unsupportedVersion(let v): "format version \(v) is not \(PromptCacheFile.version)"
        case .foreignModel: "computed with another model file"
        case .foreignLayout: "computed with another KV type or block layout"
        case .differentPrefix: "holds another prefix"
        case .checksumMismatch: "checksum mismatch"
        case .unreadable(let e): "unreadable (errno \(e))"
        }
    }
}
