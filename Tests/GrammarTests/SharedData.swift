import Foundation

/// Locates `../shared` (read-only reference data). Tests that need it fail, never skip, when it is missing.
enum SharedData {
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["LOOM_SHARED"] { return URL(fileURLWithPath: env) }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }
}
