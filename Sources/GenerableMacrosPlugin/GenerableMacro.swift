import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Generable`: an extension conforming the type to `Generable` and
/// `ConvertibleToGeneratedContent`, with the members docs/generable-macros.md lists.
///
/// The members go in an extension, not the type's body, so a struct keeps its memberwise
/// initializer.
public struct GenerableMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let description = typeDescription(node)
        let access = accessModifier(declaration.modifiers)
        let members: String
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            guard let properties = storedProperties(of: structDecl, in: context) else { return [] }
            members = structMembers(properties, description: description, access: access)
        } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            members = enumMembers(enumCases(of: enumDecl), typeName: type.trimmedDescription, description: description,
                                  access: access)
        } else {
            context.diagnose(Diagnostic(node: node, message: GenerableDiagnostic.notStructOrEnum))
            return []
        }
        let conformances = protocols.map(\.trimmedDescription)
        let header = conformances.isEmpty
            ? "extension \(type.trimmedDescription)"
            : "extension \(type.trimmedDescription): \(conformances.joined(separator: ", "))"
        let decl: DeclSyntax = "\(raw: header) {\n\(raw: members)\n}"
        guard let ext = decl.as(ExtensionDeclSyntax.self) else { return [] }
        return [ext]
    }

    /// The `description:` argument of `@Generable`, as written.
    static func typeDescription(_ node: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments)? = node.arguments else { return nil }
        return arguments.first { $0.label?.text == "description" }?.expression.trimmedDescription
    }

    /// `public ` or `package ` when the type is, so its conformance's members can be too.
    static func accessModifier(_ modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    /// `description: <expr>, ` or nothing.
    static func descriptionArgument(_ description: String?) -> String {
        description.map { "description: \($0), " } ?? ""
    }

    /// A `GenerationSchema.Property(...)` expression for one property.
    static func propertySchema(_ property: GenerableProperty) -> String {
        let type = property.isOptional ? "\(property.type)?" : property.type
        return "GenerationSchema.Property(name: \(literal(property.name)), \(descriptionArgument(property.description))"
            + "type: \(type).self, guides: [\(property.guides.joined(separator: ", "))])"
    }

    /// A Swift string literal for `text` (identifiers need no escaping beyond quotes).
    static func literal(_ text: String) -> String {
        var escaped = "\""
        for character in text {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "\""
    }
}
