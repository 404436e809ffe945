import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin behind `@Generable` and `@Guide`.
@main
struct GenerableMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [GenerableMacro.self, GuideMacro.self]
}
