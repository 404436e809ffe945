import SwiftSyntax

/// One stored property of a `@Generable` struct (or one associated value of an enum case), as
/// the expansion needs it: its JSON name, the Swift expression naming it, its type with any
/// optional unwrapped, and its `@Guide` arguments.
struct GenerableProperty {
    /// The name in generated JSON (backticks removed).
    var name: String
    /// The identifier in Swift code (backticks kept).
    var identifier: String
    /// The property's type as written, without an outer optional.
    var type: String
    /// Whether the type is optional: the model may omit the property.
    var isOptional: Bool
    /// The `description:` argument of `@Guide`, as written.
    var description: String?
    /// The guide arguments of `@Guide`, as expressions typed against `GenerationGuide<type>`.
    var guides: [String]

    /// The type and optionality of a written type (`T?`, `T!` and `Optional<T>` are optional).
    static func unwrap(_ type: TypeSyntax) -> (type: String, isOptional: Bool) {
        if let optional = type.as(OptionalTypeSyntax.self) { return (optional.wrappedType.trimmedDescription, true) }
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return (iuo.wrappedType.trimmedDescription, true) }
        if let named = type.as(IdentifierTypeSyntax.self), named.name.text == "Optional",
           let argument = named.genericArgumentClause?.arguments.first, named.genericArgumentClause?.arguments.count == 1 {
            return (argument.argument.trimmedDescription, true)
        }
        return (type.trimmedDescription, false)
    }

    /// The JSON name for an identifier token.
    static func jsonName(_ token: TokenSyntax) -> String {
        var text = token.text
        if text.hasPrefix("`"), text.hasSuffix("`"), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        return text
    }

    /// Reads the `@Guide` attribute among `attributes`: its description and its guides. A regex
    /// (a literal or a `Regex` value built in place) stands for `.pattern(regex)`.
    static func guide(in attributes: AttributeListSyntax) -> (description: String?, guides: [String]) {
        for element in attributes {
            guard case .attribute(let attribute) = element,
                  attribute.attributeName.trimmedDescription == "Guide" else { continue }
            guard case .argumentList(let arguments)? = attribute.arguments else { return (nil, []) }
            var description: String?
            var guides: [String] = []
            for argument in arguments {
                if argument.label?.text == "description" {
                    description = argument.expression.trimmedDescription
                } else if isRegex(argument.expression) {
                    guides.append(".pattern(\(argument.expression.trimmedDescription))")
                } else {
                    guides.append(argument.expression.trimmedDescription)
                }
            }
            return (description, guides)
        }
        return (nil, [])
    }

    static func isRegex(_ expression: ExprSyntax) -> Bool {
        if expression.is(RegexLiteralExprSyntax.self) { return true }
        if let call = expression.as(FunctionCallExprSyntax.self),
           call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "Regex" { return true }
        return false
    }

    /// Whether a binding stores a value (no accessors, or only observers).
    static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        guard let accessors = binding.accessorBlock?.accessors else { return true }
        switch accessors {
        case .getter: return false
        case .accessors(let list):
            return list.allSatisfy {
                $0.accessorSpecifier.tokenKind == .keyword(.willSet) || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
            }
        }
    }
}
