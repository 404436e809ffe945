import Foundation

/// Locates the package, `../shared` (read-only reference data) and the default model for every
/// test target. Tests that need them fail, never skip, when they are missing.
public enum SharedData {
    /// The package root (the directory holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `../shared` beside the package root, or `$LOOM_SHARED`.
    public static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["LOOM_SHARED"] { return URL(fileURLWithPath: env) }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// Absolute path of a file under `../shared`.
    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// The bytes of a file under `../shared`.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    /// The UTF-8 text of a file under `../shared`.
    public static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    /// The default model (`models/default.gguf`, SmolLM2-135M-Instruct).
    public static var defaultModel: String { packageRoot.appendingPathComponent("models/default.gguf").path }

    /// Gemma 3 270M (`models/gemma3-270m.gguf`, fetched by `models/fetch gemma3-270m`), the model
    /// `reference/gemma3-270m-q4_k_m.json` is for.
    public static var gemma3Model: String { packageRoot.appendingPathComponent("models/gemma3-270m.gguf").path }

    /// Absolute path of a file of llama.cpp's `models/` folder (vocabulary-only GGUF files with
    /// their tokenizer vectors, and `templates/`), fetched by `models/fetch llama-vocab`.
    public static func llamaVocab(_ relative: String) -> String {
        packageRoot.appendingPathComponent("models/llama-vocab").appendingPathComponent(relative).path
    }

    /// The template-less llama2.c model `../shared/models/stories260K.gguf`.
    public static var stories: String { path("models/stories260K.gguf") }

    /// Writes `bytes` to a fresh temporary file and returns its path.
    public static func temporaryFile(bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loom-test-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        return url.path
    }
}
