/// The Unicode properties the pre-tokenizer patterns test: general category groups (`\p{L}`,
/// `\p{N}`, `\p{P}`, `\p{M}`, `\p{S}`) and llama.cpp's whitespace set (`\s`).
///
/// One byte per scalar, so a fragment's classes are computed once and every pattern then works on
/// plain bit tests instead of re-querying Unicode tables.
struct ScalarClass: OptionSet, Sendable {
    let rawValue: UInt8

    static let letter = ScalarClass(rawValue: 1 << 0)
    static let number = ScalarClass(rawValue: 1 << 1)
    static let punctuation = ScalarClass(rawValue: 1 << 2)
    static let mark = ScalarClass(rawValue: 1 << 3)
    static let symbol = ScalarClass(rawValue: 1 << 4)
    static let whitespace = ScalarClass(rawValue: 1 << 5)
    /// Set for every real scalar. llama.cpp's custom splitters test "has any flag" to tell a scalar
    /// inside the fragment from the empty flags returned past its end.
    static let present = ScalarClass(rawValue: 1 << 6)

    /// Classes of the Basic Multilingual Plane, precomputed once (64 KiB) because nearly all text
    /// lives there; other planes are classified on demand.
    private static let basicPlane: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 0x10000)
        for v in 0..<0x10000 {
            if let s = Unicode.Scalar(UInt32(v)) { table[v] = compute(s).rawValue }
            else { table[v] = ScalarClass.present.rawValue }  // lone surrogates cannot occur in a String
        }
        return table
    }()

    /// The classes of `scalar`.
    @inline(__always)
    static func of(_ scalar: UInt32) -> ScalarClass {
        if scalar < 0x10000 { return ScalarClass(rawValue: basicPlane[Int(scalar)]) }
        guard let s = Unicode.Scalar(scalar) else { return .present }
        return compute(s)
    }

    /// Unicode's White_Space property, the set llama.cpp's `\s` uses (`unicode_set_whitespace`).
    static func isWhitespace(_ v: UInt32) -> Bool {
        switch v {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    /// The Unicode version of llama.cpp's category tables (`unicode-data.cpp`). Characters
    /// assigned later count as unassigned there, so they do here too: otherwise ids would change
    /// with the toolchain's Unicode version (Swift's tables are newer).
    static let unicodeVersion = (major: 15, minor: 1)

    private static func compute(_ s: Unicode.Scalar) -> ScalarClass {
        var c: ScalarClass = .present
        if isWhitespace(s.value) { c.insert(.whitespace) }
        guard let age = s.properties.age,
              age.major < unicodeVersion.major || (age.major == unicodeVersion.major && age.minor <= unicodeVersion.minor)
        else { return c }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: c.insert(.letter)
        case .decimalNumber, .letterNumber, .otherNumber: c.insert(.number)
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation: c.insert(.punctuation)
        case .nonspacingMark, .spacingMark, .enclosingMark: c.insert(.mark)
        case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol: c.insert(.symbol)
        default: break
        }
        return c
    }
}
