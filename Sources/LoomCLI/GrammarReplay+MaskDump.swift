#if canImport(Glibc)
import Glibc
#endif
import Grammar
import LoomJSON

extension GrammarReplay {
    /// Masks written by `--dump-masks`.
    final class MaskDump {
        let masks: UnsafeMutablePointer<FILE>
        let lines: UnsafeMutablePointer<FILE>
        private(set) var steps = 0

        init(directory: String, vocabulary: GrammarVocabulary) throws {
            mkdir(directory, 0o755)
            var tokens: [JSONValue] = []
            for id in 0..<vocabulary.size {
                let hex = vocabulary.bytes(of: id).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                tokens.append(.string(hex))
            }
            let doc = JSONValue.object(JSONObject([
                ("eos", .array(vocabulary.endOfGeneration.map { .number(JSONNumber($0)) })),
                ("words", .number(JSONNumber(vocabulary.maskWordCount))),
                ("tokens", .array(tokens)),
            ]))
            guard let v = fopen(directory + "/vocab.json", "wb"), let m = fopen(directory + "/masks.bin", "wb"),
                  let l = fopen(directory + "/steps.jsonl", "wb") else { throw RuntimeError("cannot write to \(directory)") }
            let text = doc.serialized()
            fputs(text, v)
            fclose(v)
            masks = m
            lines = l
        }

        deinit {
            fclose(masks)
            fclose(lines)
        }

        func write(_ mask: [UInt64]) {
            _ = mask.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, masks) }
            steps += 1
        }

        func line(index: Int, id: String, tokens: [Int], nanos: [UInt64], first: Int) {
            let doc = JSONValue.object(JSONObject([
                ("schema", .number(JSONNumber(index))), ("id", .string(id)), ("first", .number(JSONNumber(first))),
                ("tokens", .array(tokens.map { .number(JSONNumber($0)) })),
                ("mask_ns", .array(nanos.map { .number(JSONNumber(Int($0))) })),
            ]))
            fputs(doc.serialized() + "\n", lines)
        }
    }
}
