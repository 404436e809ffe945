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

    /// The members of an enum's conformance: a string enum when no case carries values, else
    /// one object per case.
    static func enumMembers(_ cases: [GenerableEnumCase], typeName: String, description: String?, access: String) -> String {
        var lines: [String] = []
        lines.append("\(access)typealias PartiallyGenerated = \(typeName)")
        if cases.allSatisfy({ $0.values.isEmpty }) {
            let choices = cases.map { literal($0.name) }.joined(separator: ", ")
            lines.append("\(access)static var generationSchema: GenerationSchema {")
            lines.append("    GenerationSchema(type: Self.self, \(descriptionArgument(description))anyOf: [\(choices)])")
            lines.append("}")
            lines.append("\(access)init(_ content: GeneratedContent) throws {")
            lines.append("    switch try String(content) {")
            for c in cases { lines.append("    case \(literal(c.name)): self = .\(c.identifier)") }
            lines.append("    default:")
            lines.append("        throw GeneratedContent.ParsingError(rawContent: content.jsonString, "
                + "debugDescription: \"\\(content.jsonString) is not a case of \(typeName)\")")
            lines.append("    }")
            lines.append("}")
            lines.append("\(access)var generatedContent: GeneratedContent {")
            lines.append("    switch self {")
            for c in cases { lines.append("    case .\(c.identifier): return GeneratedContent(\(literal(c.name)))") }
            lines.append("    }")
            lines.append("}")
            return lines.joined(separator: "\n")
        }

        lines.append("\(access)static var generationSchema: GenerationSchema {")
        lines.append("    GenerationSchema(type: Self.self, \(descriptionArgument(description))cases: [")
        for c in cases {
            let properties = c.values.map(propertySchema).joined(separator: ", ")
            lines.append("        GenerationSchema.EnumCase(name: \(literal(c.name)), properties: [\(properties)]),")
        }
        lines.append("    ])")
        lines.append("}")

        lines.append("\(access)init(_ content: GeneratedContent) throws {")
        lines.append("    let cases = try content.properties()")
        for c in cases {
            if c.values.isEmpty {
                lines.append("    if cases[\(literal(c.name))] != nil { self = .\(c.identifier); return }")
                continue
            }
            let arguments = zip(c.values, c.labels).map { value, label -> String in
                let type = value.isOptional ? "\(value.type)?" : value.type
                let read = "try payload.value(\(type).self, forProperty: \(literal(value.name)))"
                return label.map { "\($0): \(read)" } ?? read
            }
            lines.append("    if let payload = cases[\(literal(c.name))] {")
            lines.append("        self = .\(c.identifier)(\(arguments.joined(separator: ", ")))")
            lines.append("        return")
            lines.append("    }")
        }
        lines.append("    throw GeneratedContent.ParsingError(rawContent: content.jsonString, "
            + "debugDescription: \"\\(content.jsonString) is not a case of \(typeName)\")")
        lines.append("}")

        lines.append("\(access)var generatedContent: GeneratedContent {")
        lines.append("    switch self {")
        for c in cases {
            let bindings = c.values.isEmpty ? "" : "(" + c.values.map { "let \($0.identifier)" }.joined(separator: ", ") + ")"
            lines.append("    case .\(c.identifier)\(bindings):")
            lines.append(contentsOf: contentBuilder(c.values.map { ($0, $0.identifier) }, into: "values", indent: "        "))
            lines.append("        let payload = GeneratedContent(properties: values, uniquingKeysWith: { first, _ in first })")
            lines.append("        return GeneratedContent(properties: [\(literal(c.name)): payload])")
        }
        lines.append("    }")
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
