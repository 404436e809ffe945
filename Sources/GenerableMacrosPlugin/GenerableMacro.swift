import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Generable`: members in the type's body (`PartiallyGenerated`, `generationSchema`) and an
/// extension conforming it to `Generable` and `ConvertibleToGeneratedContent` (`init(_:)`,
/// `generatedContent`), as docs/generable-macros.md lists.
///
/// The members that name the properties' types go in the body, where those names resolve as
/// they do for the properties themselves (a sibling nested type, a generic parameter); the
/// initializer goes in the extension, so a struct keeps its memberwise initializer, and names
/// no type: each value's type is inferred from the property it initializes.
public struct GenerableMacro: MemberMacro, ExtensionMacro {
    /// The two halves of an expansion.
    struct Expansion {
        var members: [String]
        var extensionMembers: [String]
    }

    /// The expansion for `declaration`, or nil after a diagnostic (reported by the member role only,
    /// so each problem is said once).
    static func expansion(
        of node: AttributeSyntax, for declaration: some DeclGroupSyntax, typeName: String?,
        in context: some MacroExpansionContext, diagnose: Bool
    ) -> Expansion? {
        let description = typeDescription(node)
        let access = accessModifier(declaration.modifiers)
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            guard let properties = storedProperties(of: structDecl, in: context, diagnose: diagnose) else { return nil }
            return structExpansion(properties, description: description, access: access)
        }
        if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            return enumExpansion(enumCases(of: enumDecl), typeName: typeName ?? enumDecl.name.text,
                                 description: description, access: access)
        }
        if diagnose { context.diagnose(Diagnostic(node: node, message: GenerableDiagnostic.notStructOrEnum)) }
        return nil
    }

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let expansion = expansion(of: node, for: declaration, typeName: nil, in: context, diagnose: true) else {
            return []
        }
        return expansion.members.map { DeclSyntax(stringLiteral: $0) }
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let expansion = expansion(of: node, for: declaration, typeName: type.trimmedDescription, in: context,
                                        diagnose: false) else { return [] }
        let conformances = protocols.map(\.trimmedDescription)
        let header = conformances.isEmpty
            ? "extension \(type.trimmedDescription)"
            : "extension \(type.trimmedDescription): \(conformances.joined(separator: ", "))"
        let decl: DeclSyntax = "\(raw: header) {\n\(raw: expansion.extensionMembers.joined(separator: "\n"))\n}"
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
