import SwiftSyntax

/// One case of a `@Generable` enum.
struct GenerableEnumCase {
    /// The case's name in Swift.
    var identifier: String
    /// The string that stands for it: its string raw value if it has one, else its name.
    var name: String
    /// Its associated values (labels as names, unlabelled ones as `_0`, `_1`, …).
    var values: [GenerableProperty]
    /// The values' labels as written (nil where unlabelled), for the case's call syntax.
    var labels: [String?]
}

extension GenerableMacro {
    /// The enum's cases in declaration order.
    static func enumCases(of decl: EnumDeclSyntax) -> [GenerableEnumCase] {
        var cases: [GenerableEnumCase] = []
        for member in decl.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                var name = GenerableProperty.jsonName(element.name)
                if let raw = element.rawValue?.value.as(StringLiteralExprSyntax.self), raw.segments.count == 1,
                   case .stringSegment(let segment)? = raw.segments.first { name = segment.content.text }
                var values: [GenerableProperty] = []
                var labels: [String?] = []
                for (index, parameter) in (element.parameterClause?.parameters ?? []).enumerated() {
                    let label = parameter.firstName.flatMap { $0.tokenKind == .wildcard ? nil : $0 }
                    let unwrapped = GenerableProperty.unwrap(parameter.type)
                    values.append(GenerableProperty(
                        name: label.map(GenerableProperty.jsonName) ?? "_\(index)", identifier: "value\(index)",
                        type: unwrapped.type, isOptional: unwrapped.isOptional, description: nil, guides: []))
                    labels.append(label?.text)
                }
                cases.append(GenerableEnumCase(identifier: element.name.text, name: name, values: values, labels: labels))
            }
        }
        return cases
    }

    /// An enum's expansion: a string enum when no case carries values, else one object per case.
    /// The schema (which names the values' types) goes in the body; the initializer, whose
    /// values take their types from the case's parameters, and the content go in the extension.
    static func enumExpansion(_ cases: [GenerableEnumCase], typeName: String, description: String?,
                              access: String) -> Expansion {
        let partial = "\(access)typealias PartiallyGenerated = \(typeName)"
        var schema: [String] = []
        var initializer: [String] = []
        var content: [String] = []
        let mismatch = "        throw GeneratedContent.ParsingError(rawContent: content.jsonString, "
            + "debugDescription: \"\\(content.jsonString) is not a case of \(typeName)\")"
        if cases.allSatisfy({ $0.values.isEmpty }) {
            let choices = cases.map { literal($0.name) }.joined(separator: ", ")
            schema.append("\(access)static var generationSchema: GenerationSchema {")
            schema.append("    GenerationSchema(type: Self.self, \(descriptionArgument(description))anyOf: [\(choices)])")
            schema.append("}")
            initializer.append("\(access)init(_ content: GeneratedContent) throws {")
            initializer.append("    switch try String(content) {")
            for c in cases { initializer.append("    case \(literal(c.name)): self = .\(c.identifier)") }
            initializer.append("    default:")
            initializer.append(mismatch)
            initializer.append("    }")
            initializer.append("}")
            content.append("\(access)var generatedContent: GeneratedContent {")
            content.append("    switch self {")
            for c in cases { content.append("    case .\(c.identifier): return GeneratedContent(\(literal(c.name)))") }
            content.append("    }")
            content.append("}")
        } else {
            schema.append("\(access)static var generationSchema: GenerationSchema {")
            schema.append("    GenerationSchema(type: Self.self, \(descriptionArgument(description))cases: [")
            for c in cases {
                let properties = c.values.map(propertySchema).joined(separator: ", ")
                schema.append("        GenerationSchema.EnumCase(name: \(literal(c.name)), properties: [\(properties)]),")
            }
            schema.append("    ])")
            schema.append("}")

            initializer.append("\(access)init(_ content: GeneratedContent) throws {")
            initializer.append("    let cases = try content.properties()")
            for c in cases {
                if c.values.isEmpty {
                    initializer.append("    if cases[\(literal(c.name))] != nil { self = .\(c.identifier); return }")
                    continue
                }
                let arguments = zip(c.values, c.labels).map { value, label -> String in
                    let read = "try payload.value(forProperty: \(literal(value.name)))"
                    return label.map { "\($0): \(read)" } ?? read
                }
                initializer.append("    if let payload = cases[\(literal(c.name))] {")
                initializer.append("        self = .\(c.identifier)(\(arguments.joined(separator: ", ")))")
                initializer.append("        return")
                initializer.append("    }")
            }
            initializer.append(String(mismatch.dropFirst(4)))
            initializer.append("}")

            content.append("\(access)var generatedContent: GeneratedContent {")
            content.append("    switch self {")
            for c in cases {
                let bindings = c.values.isEmpty ? "" : "(" + c.values.map { "let \($0.identifier)" }.joined(separator: ", ") + ")"
                content.append("    case .\(c.identifier)\(bindings):")
                content.append(contentsOf: contentBuilder(c.values.map { ($0, $0.identifier) }, into: "values", indent: "        "))
                content.append("        let payload = GeneratedContent(properties: values, uniquingKeysWith: { first, _ in first })")
                content.append("        return GeneratedContent(properties: [\(literal(c.name)): payload])")
            }
            content.append("    }")
            content.append("}")
        }
        return Expansion(members: [partial, schema.joined(separator: "\n")],
                         extensionMembers: [initializer.joined(separator: "\n"), content.joined(separator: "\n")])
    }
}
