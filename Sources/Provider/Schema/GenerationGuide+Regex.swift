import LoomJSON

extension GenerationGuide where Value == String {
    /// Matches `regex`, as Apple's `pattern(_:)` takes it: a regex literal (`/[a-z]+/`) or a
    /// `Regex` built at run time.
    ///
    /// JSON Schema carries a pattern as text, so the regex is printed back with the standard
    /// library's `_literalPattern` (the one public way to read a `Regex`'s pattern). A regex it
    /// cannot print — one made of custom `RegexComponent`s — has no JSON Schema form, and
    /// silently dropping the constraint would let the model generate what the app forbade, so
    /// that is a programmer error.
    public static func pattern<Output>(_ regex: Regex<Output>) -> GenerationGuide<String> {
        guard let text = regex._literalPattern else {
            preconditionFailure("GenerationGuide.pattern: this Regex has no textual pattern to put in a JSON Schema; "
                + "write it as a regex literal or pass the pattern as a String")
        }
        return .init([("pattern", .string(text))])
    }
}
