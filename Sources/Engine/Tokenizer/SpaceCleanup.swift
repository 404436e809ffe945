/// Hugging Face's `clean_up_tokenization_spaces`, as llama.cpp's detokenizer applies it to
/// vocabularies that ask for it (`Tokenizer.cleansUpSpaces`): drop the space before `?!.,`, the
/// spaces around a lone `'`, and the space before the contractions `'s 'm 're 've 'll`.
///
/// It is lossy (`"a , b"` becomes `"a, b"`), which is why `decode` only applies it on request.
enum SpaceCleanup {
    static func apply(_ text: inout [UInt8]) {
        guard text.count > 1 else { return }
        // Pass 1: " ?", " !", " .", " ,".
        var out = [text[0]]
        out.reserveCapacity(text.count)
        for i in 1..<text.count {
            let x = text[i]
            if text[i - 1] == 0x20 && (x == 0x3F || x == 0x21 || x == 0x2E || x == 0x2C) { out.removeLast() }
            out.append(x)
        }
        // Pass 2: " ' " → "'". llama.cpp blanks the consumed space in place, so the character
        // after it never sees a space before it.
        text = out
        out = [text[0]]
        var i = 1
        var previousBlanked = false
        while i < text.count {
            let x = text[i]
            let previous = previousBlanked ? 0 : text[i - 1]
            previousBlanked = false
            if x == 0x27 && i + 1 < text.count && previous == 0x20 && text[i + 1] == 0x20 {
                out.removeLast()
                out.append(x)
                i += 2
                previousBlanked = true
                continue
            }
            out.append(x)
            i += 1
        }
        // Pass 3: " 's", " 'm", " 're", " 've", " 'll" lose the space (" 't" and " 'd" keep it).
        text = out
        out = [text[0]]
        for i in 1..<text.count {
            let x = text[i]
            if text[i - 1] == 0x20 && x == 0x27 && i + 1 < text.count {
                let a = text[i + 1]
                if a == 0x73 || a == 0x6D {
                    out.removeLast()
                } else if i + 2 < text.count {
                    let b = text[i + 2]
                    if (a == 0x6C && b == 0x6C) || (a == 0x72 && b == 0x65) || (a == 0x76 && b == 0x65) { out.removeLast() }
                }
            }
            out.append(x)
        }
        text = out
    }
}
