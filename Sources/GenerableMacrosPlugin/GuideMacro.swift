import SwiftSyntax
import SwiftSyntaxMacros

/// `@Guide` writes nothing itself: it marks a property, and `@Generable` reads its arguments
/// where it builds the property's schema (where the property's type is known).
public struct GuideMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
