import Foundation

/// Locates `../shared` (read-only reference data) and the default model for tests.
/// Tests that need them fail, never skip, when they are missing.
enum SharedData {
    /// The package root (the directory holding Package.swift).
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `../shared` beside the package root, or `$LOOM_SHARED`.
    static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["LOOM_SHARED"] { return URL(fileURLWithPath: env) }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// Absolute path of a file under `../shared`.
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// The bytes of a file under `../shared`.
    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    /// The default model (`models/default.gguf`).
    static var defaultModel: String { packageRoot.appendingPathComponent("models/default.gguf").path }

    /// Writes `bytes` to a fresh temporary file and returns its path.
    static func temporaryFile(bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loom-test-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        return url.path
    }
}
