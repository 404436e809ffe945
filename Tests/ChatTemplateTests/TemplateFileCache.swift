import ChatTemplate
import Foundation

/// Chat templates read from files, each parsed once per test.
struct TemplateFileCache {
    private var parsed: [String: ChatTemplate] = [:]

    /// The template in the file at `path`, parsed on first use.
    mutating func template(at path: String) throws -> ChatTemplate {
        if let t = parsed[path] { return t }
        let t = try ChatTemplate(source: String(contentsOfFile: path, encoding: .utf8))
        parsed[path] = t
        return t
    }
}
