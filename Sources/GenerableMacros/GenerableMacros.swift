// `@Generable` and `@Guide`, with Apple's Foundation Models spellings. The expansions are plain
// Swift written against Provider's API (`GenerationSchema`, `GenerationGuide`,
// `GeneratedContent`); the rules they follow are in docs/generable-macros.md.
@_exported import Provider

/// Makes a struct or an enum `Generable`: writes its `generationSchema`, `init(_ content:)`,
/// `generatedContent`, and (for structs) a `PartiallyGenerated` mirror whose stored properties
/// are all optional, for reading streamed snapshots field by field.
///
/// Structs contribute their stored properties in declaration order (`@Guide` adds a description
/// and constraints); enums whose cases carry no values become string enums; enums with
/// associated values become one object per case, as Swift's `Codable` shapes them.
@attached(member, names: named(PartiallyGenerated), named(generationSchema))
@attached(
    extension, conformances: Generable, ConvertibleToGeneratedContent,
    names: named(init(_:)), named(generatedContent)
)
public macro Generable(description: String? = nil) =
    #externalMacro(module: "GenerableMacrosPlugin", type: "GenerableMacro")

/// Describes and constrains a stored property of a `@Generable` type: `@Guide(description:
/// "…", .range(1...10))`. The guides are checked against the property's type in the
/// `@Generable` expansion.
@attached(peer)
public macro Guide<T>(description: String? = nil, _ guides: GenerationGuide<T>...) =
    #externalMacro(module: "GenerableMacrosPlugin", type: "GuideMacro")

/// Describes a stored property of a `@Generable` type to the model.
@attached(peer)
public macro Guide(description: String) =
    #externalMacro(module: "GenerableMacrosPlugin", type: "GuideMacro")

/// Constrains a `String` property of a `@Generable` type to match `guides`, a regex
/// (`@Guide(description: "A zip code", /[0-9]{5}/)`).
@attached(peer)
public macro Guide<RegexOutput>(description: String? = nil, _ guides: Regex<RegexOutput>) =
    #externalMacro(module: "GenerableMacrosPlugin", type: "GuideMacro")
