import Foundation
import Testing

/// docs/architecture.md lists every module edge; each must be a real import in `Sources/`, and
/// every import between Loom's modules must be listed, so the page cannot drift from the code.
struct ArchitectureDriftTests {
    /// `module -> [imported modules]` from the page's `module-edges` block.
    static func documentedEdges() throws -> [String: Set<String>] {
        let page = try String(contentsOf: SharedData.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let marker = try #require(page.range(of: "<!-- module-edges -->\n```\n"))
        let end = try #require(page.range(of: "```", range: marker.upperBound..<page.endIndex))
        var edges: [String: Set<String>] = [:]
        for line in page[marker.upperBound..<end.lowerBound].split(separator: "\n") {
            let parts = line.components(separatedBy: " -> ")
            try #require(parts.count == 2, "malformed edge line: \(line)")
            let targets = parts[1] == "(nothing)" ? [] : parts[1].components(separatedBy: ", ")
            for source in parts[0].components(separatedBy: ", ") { edges[source, default: []].formUnion(targets) }
        }
        return edges
    }

    /// Loom's modules: the folders of `Sources/`.
    static func modules() throws -> Set<String> {
        let sources = SharedData.packageRoot.appendingPathComponent("Sources")
        return Set(try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { !$0.hasPrefix(".") })
    }

    /// `module -> [imported modules]` read from the import lines of every Swift file in `Sources/`.
    static func importedEdges() throws -> [String: Set<String>] {
        let modules = try Self.modules()
        var edges: [String: Set<String>] = [:]
        for module in modules {
            edges[module] = try imports(under: "Sources/\(module)", among: modules)
        }
        return edges
    }

    /// Which of `modules` the Swift files under `folder` (relative to the package root) import.
    static func imports(under folder: String, among modules: Set<String>) throws -> Set<String> {
        let root = SharedData.packageRoot.appendingPathComponent(folder)
        var found: Set<String> = []
        let files = try #require(FileManager.default.enumerator(atPath: root.path))
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                      words[..<i].allSatisfy({ $0.hasPrefix("@") || $0 == "public" || $0 == "internal" }) else { continue }
                if modules.contains(words[i + 1]) { found.insert(words[i + 1]) }
            }
        }
        return found
    }

    @Test func everyDocumentedEdgeIsAnImportAndEveryImportIsDocumented() throws {
        let documented = try Self.documentedEdges()
        let imported = try Self.importedEdges()
        #expect(Set(documented.keys) == Set(imported.keys), "modules on the page vs in Sources/")
        for (module, targets) in imported {
            #expect(documented[module] == targets, "\(module): page \(documented[module] ?? []) vs imports \(targets)")
        }
    }

    /// A unit test target tests one module with what that module itself may see, so a test of
    /// the framework can never lean on the engine the framework must not know.
    @Test func theFrameworkTestsImportOnlyWhatTheFrameworkMay() throws {
        let modules = try Self.modules()
        let tested = try Self.imports(under: "Tests/ProviderTests", among: modules)
        #expect(tested.isSubset(of: ["Provider", "LoomJSON", "LoomSupport"]), "ProviderTests imports \(tested)")
    }

    @Test func theSessionFrameworkImportsNoEngine() throws {
        let provider = try #require(try Self.importedEdges()["Provider"])
        #expect(provider.isDisjoint(with: ["Engine", "Grammar", "CTensor", "ChatTemplate", "LocalBackend"]))
    }
}
