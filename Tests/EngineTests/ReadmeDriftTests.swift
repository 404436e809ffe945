import CTensor
import Foundation
import Testing
@testable import Engine

/// The README's "Supported" lists are claims about the code; these tests hold them to it, so
/// adding an architecture, a weight type or a pre-tokenizer without listing it (or listing one
/// that does not exist) fails here. Also checks that docs/custom-models.md quotes the compiled
/// example verbatim.
@Suite struct ReadmeDriftTests {
    /// The backticked items of the README line `- **<label>**: `a`, `b` …`.
    static func readmeList(_ label: String) throws -> [String] {
        let readme = try String(contentsOf: SharedData.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let prefix = "- **\(label)**:"
        guard let line = readme.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            Issue.record("README.md has no line starting with '\(prefix)'")
            return []
        }
        return line.dropFirst(prefix.count).split(separator: "`", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test func architecturesMatchTheRegistry() throws {
        let listed = try Self.readmeList("Architectures")
        #expect(listed == ModelArchitectures.all.map { $0.name },
                "README lists \(listed); ModelArchitectures.all has \(ModelArchitectures.all.map { $0.name })")
    }

    @Test func weightTypesMatchTheKernelTable() throws {
        let listed = try Self.readmeList("Weight types")
        let supported = (0..<64).filter { loom_type_supported(Int32($0)) }.map { String(cString: loom_type_name(Int32($0))) }
        #expect(Set(listed) == Set(supported), "README lists \(listed); CTensor supports \(supported)")
        #expect(listed.count == Set(listed).count, "README lists a weight type twice")
    }

    /// A new tokenizer family is a compile error here until it is named, and then must be listed.
    static func familyName(_ algorithm: Tokenizer.Algorithm) -> String {
        switch algorithm {
        case .sentencePiece: return algorithm.rawValue
        case .bytePair: return algorithm.rawValue
        }
    }

    @Test func tokenizerFamiliesMatchTheEnum() throws {
        let listed = try Self.readmeList("Tokenizers")
        #expect(listed == [Tokenizer.Algorithm.sentencePiece, .bytePair].map(Self.familyName))
    }

    @Test func preTokenizersMatchTheImplementation() throws {
        let listed = try Self.readmeList("Pre-tokenizers")
        #expect(!listed.isEmpty)
        for name in listed {
            #expect(throws: Never.self, "README lists pre-tokenizer '\(name)', which Loom rejects") {
                _ = try Tokenizer.preTokenize("Hello 123 world", preTokenizer: name)
            }
        }
        // Every name the implementation's table accepts must be listed.
        let implemented = Array(PreTokenizer.recipes.keys)
        #expect(Set(implemented).isSubset(of: Set(listed)),
                "pre-tokenizers missing from README: \(Set(implemented).subtracting(listed).sorted())")
    }

    /// docs/custom-models.md shows the CustomModel example; the example is what the CI builds.
    @Test func customModelDocQuotesTheExampleVerbatim() throws {
        let doc = try String(contentsOf: SharedData.packageRoot.appendingPathComponent("docs/custom-models.md"), encoding: .utf8)
        let dir = SharedData.packageRoot.appendingPathComponent("Examples/Sources/CustomModel")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.count >= 3)
        for file in files {
            let code = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            #expect(doc.contains("```swift\n" + code + "```"),
                    "docs/custom-models.md does not quote Examples/Sources/CustomModel/\(file) verbatim (regenerate the block)")
        }
    }
}
