import ChatTemplate
import Engine
import Foundation
import LoomJSON
import Testing

/// The default run's bounded share of fuzzing (the long campaigns are `scripts/fuzz`): a fixed,
/// seeded stream of mutations of a GGUF image, real chat templates and tokenizer inputs. Each
/// mutant must load, render or tokenize, or fail with the module's typed error. Same seed, same
/// mutants: a failure here replays exactly.
@Suite(.serialized) struct MutationRegressionTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let interesting: [UInt8] = [0, 1, 2, 3, 4, 7, 8, 9, 0x7F, 0x80, 0xFF, 0x7B, 0x7D, 0x25, 0x7C, 0x28, 0x29, 0x22, 0x27, 0x20]

    static func mutate(_ seed: [UInt8], _ rng: inout SplitMix) -> [UInt8] {
        var b = seed
        for _ in 0...Int.random(in: 0...3, using: &rng) where !b.isEmpty {
            let at = Int.random(in: 0..<b.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: b[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            case 1: b[at] = interesting.randomElement(using: &rng)!
            case 2: b.removeSubrange(at..<min(b.count, at + Int.random(in: 1...8, using: &rng)))
            default:
                let end = min(b.count, at + Int.random(in: 1...16, using: &rng))
                b.insert(contentsOf: b[at..<end], at: Int.random(in: 0...b.count, using: &rng))
            }
        }
        return b
    }

    @Test func mutatedGGUFImages() {
        var rng = SplitMix(state: 1)
        let valid = GGUFBuilder.valid()
        var loaded = 0
        for _ in 0..<2000 {
            do throws(ModelLoadError) {
                let file = try GGUFFile(bytes: Self.mutate(valid, &rng))
                loaded += 1
                for t in file.tensors { #expect(file.dataOffset + t.offset + t.byteCount <= file.fileSize) }
            } catch {
                _ = error.description  // a typed ModelLoadError with a message
            }
        }
        #expect(loaded > 0)
    }

    @Test func mutatedChatTemplates() throws {
        var rng = SplitMix(state: 2)
        let names = ["Qwen-Qwen2.5-7B-Instruct", "meta-llama-Llama-3.1-8B-Instruct", "moonshotai-Kimi-K2", "openai-gpt-oss-120b"]
        let sources = try names.map { try SharedData.bytes("chat-templates/templates/\($0).jinja") }
        let limits = TemplateLimits(maximumOutputBytes: 1 << 16, maximumSteps: 50_000, maximumCallDepth: 16, maximumNesting: 100)
        let messages: [JSONValue] = [["role": "system", "content": "s"], ["role": "user", "content": "hi <|im_end|>"]]
        var rendered = 0, failed = 0
        for _ in 0..<300 {
            let source = String(decoding: Self.mutate(sources.randomElement(using: &rng)!, &rng), as: UTF8.self)
            do throws(TemplateError) {
                _ = try ChatTemplate(source: source, limits: limits).render(
                    messages: messages, addGenerationPrompt: true, bosToken: "<s>", eosToken: "</s>",
                    now: TemplateDateTime(year: 2026, month: 1, day: 1))
                rendered += 1
            } catch {
                failed += 1
                #expect(!error.message.isEmpty)
            }
        }
        #expect(rendered > 0 && failed > 0)
    }

    @Test func mutatedTokenizerInputs() throws {
        var rng = SplitMix(state: 3)
        let t = try TokenizerConformanceTests.cache.tokenizer(SharedData.path("vocab/ggml-vocab-llama-bpe.gguf"))
        let seed = Array("Hello, world! <|begin_of_text|> 日本語 🦙 \t\n 1234".utf8)
        for _ in 0..<500 {
            let text = String(decoding: Self.mutate(seed, &rng), as: UTF8.self)
            let ids = t.encode(text)
            #expect(!ids.contains { t.isControl($0) })
            #expect(try t.decode(ids) == text)
        }
    }
}
