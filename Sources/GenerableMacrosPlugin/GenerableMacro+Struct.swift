import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

extension GenerableMacro {
    /// The struct's stored instance properties in declaration order; constants with an initial
    /// value are left out (an initializer cannot set them). Nil after a diagnostic.
    static func storedProperties(
        of decl: StructDeclSyntax, in context: some MacroExpansionContext, diagnose: Bool
    ) -> [GenerableProperty]? {
        var properties: [GenerableProperty] = []
        var failed = false
        for member in decl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }) { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            let guide = GenerableProperty.guide(in: variable.attributes)
            // In `var a, b: Int` only the last binding carries the type; it applies to those before it.
            var pendingType: TypeSyntax?
            var group: [GenerableProperty] = []
            for binding in variable.bindings.reversed() {
                if let annotation = binding.typeAnnotation { pendingType = annotation.type }
                guard GenerableProperty.isStored(binding) else { continue }
                if isLet, binding.initializer != nil { continue }
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    if diagnose { context.diagnose(Diagnostic(node: binding.pattern, message: GenerableDiagnostic.unsupportedPattern)) }
                    failed = true
                    continue
                }
                guard let type = pendingType else {
                    if diagnose { context.diagnose(Diagnostic(node: binding.pattern, message: GenerableDiagnostic.missingType)) }
                    failed = true
                    continue
                }
                let unwrapped = GenerableProperty.unwrap(type)
                group.insert(GenerableProperty(
                    name: GenerableProperty.jsonName(pattern.identifier), identifier: pattern.identifier.text,
                    type: unwrapped.type, isOptional: unwrapped.isOptional,
                    description: guide.description, guides: guide.guides), at: 0)
            }
            properties += group
        }
        return failed ? nil : properties
    }

    /// A struct's expansion: the mirror and the schema in its body; the initializer and the
    /// content in the extension.
    static func structExpansion(_ properties: [GenerableProperty], description: String?, access: String) -> Expansion {
        // The mirror: every property optional, each in its type's own partial form.
        var mirror: [String] = []
        mirror.append("\(access)struct PartiallyGenerated: ConvertibleFromGeneratedContent, Sendable {")
        for property in properties {
            mirror.append("    \(access)var \(property.identifier): \(property.type).PartiallyGenerated?")
        }
        mirror.append("    \(access)init(_ content: GeneratedContent) throws {")
        mirror.append("        _ = try content.properties()")
        for property in properties {
            mirror.append("        self.\(property.identifier) = try? content.value(\(property.type).PartiallyGenerated.self, "
                + "forProperty: \(literal(property.name)))")
        }
        mirror.append("    }")
        mirror.append("}")

        var schema: [String] = []
        schema.append("\(access)static var generationSchema: GenerationSchema {")
        schema.append("    GenerationSchema(type: Self.self, \(descriptionArgument(description))properties: [")
        for property in properties { schema.append("        \(propertySchema(property)),") }
        schema.append("    ])")
        schema.append("}")

        // Each value's type comes from the property it initializes (`value(forProperty:)` is generic
        // over its result, with an overload for optionals), so no type is named here.
        var initializer: [String] = []
        initializer.append("\(access)init(_ content: GeneratedContent) throws {")
        for property in properties {
            initializer.append("    self.\(property.identifier) = try content.value(forProperty: \(literal(property.name)))")
        }
        initializer.append("}")

        var content: [String] = []
        content.append("\(access)var generatedContent: GeneratedContent {")
        content.append(contentsOf: contentBuilder(properties.map { ($0, "self.\($0.identifier)") }, into: "properties", indent: "    "))
        content.append("    return GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in first })")
        content.append("}")
        return Expansion(members: [mirror.joined(separator: "\n"), schema.joined(separator: "\n")],
                         extensionMembers: [initializer.joined(separator: "\n"), content.joined(separator: "\n")])
    }

    /// Statements collecting `(name, value)` pairs into `variable`, leaving out nil optionals
    /// (the schema lets the model omit them; it does not allow `null`).
    static func contentBuilder(_ values: [(GenerableProperty, String)], into variable: String, indent: String) -> [String] {
        let binding = values.isEmpty ? "let" : "var"
        var lines = ["\(indent)\(binding) \(variable): [(String, any ConvertibleToGeneratedContent)] = []"]
        for (property, expression) in values {
            if property.isOptional {
                lines.append("\(indent)if let value = \(expression) { \(variable).append((\(literal(property.name)), value)) }")
            } else {
                lines.append("\(indent)\(variable).append((\(literal(property.name)), \(expression)))")
            }
        }
        return lines
    }
}
