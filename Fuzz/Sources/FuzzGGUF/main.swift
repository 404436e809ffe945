// GGUF reader → ModelDescription → Tokenizer → chat template, on arbitrary bytes.
//
// Properties: nothing traps; an accepted file's tensors all lie inside the file; a description
// accepted by ModelDescription has positive sizes; a tokenizer built from the file encodes and
// decodes without leaving its vocabulary.
import ChatTemplate
import Engine
import FuzzSupport

FuzzEntry.run { bytes in
    guard let file = try? GGUFFile(bytes: bytes, name: "<fuzz>") else { return }
    for t in file.tensors {
        let end = file.dataOffset + t.offset + t.byteCount
        if t.offset < 0 || t.byteCount < 0 || end > file.fileSize {
            FuzzEntry.violation("tensor \(t.name) spans \(file.dataOffset + t.offset)..<\(end) of a \(file.fileSize)-byte file")
        }
        if t.byteCount > 0 {
            // Touch the first and last byte: a bounds bug shows as a fault here, not in a kernel later.
            let p = file.data(for: t)
            _ = p.load(as: UInt8.self) &+ p.load(fromByteOffset: t.byteCount - 1, as: UInt8.self)
        }
    }
    if let d = try? ModelDescription(file: file) {
        if d.embeddingLength <= 0 || d.blockCount <= 0 || d.headCount <= 0 || d.kvHeadCount <= 0 || d.vocabularySize <= 0 {
            FuzzEntry.violation("accepted description with a non-positive size: \(d)")
        }
    }
    if let tokenizer = try? Tokenizer(gguf: file) {
        let ids = tokenizer.encode("Hello <|im_end|> wörld 🎉 \u{0}", addBOS: true, parseSpecial: true)
        for id in ids where id < 0 || Int(id) >= tokenizer.vocabularySize {
            FuzzEntry.violation("encode produced id \(id) outside 0..<\(tokenizer.vocabularySize)")
        }
        _ = try? tokenizer.decode(ids, renderSpecial: true)
    }
    if let template = try? file.chatTemplate(limits: TemplateLimits(maximumOutputBytes: 1 << 16, maximumSteps: 100_000)) {
        _ = try? template.render(messages: [["role": "user", "content": "hi"]], addGenerationPrompt: true,
                                 bosToken: file.bosTokenText, eosToken: file.eosTokenText)
    }
}
