import SwiftDiagnostics

/// What `@Generable` refuses, said at the declaration that causes it.
enum GenerableDiagnostic: String, DiagnosticMessage {
    case notStructOrEnum
    case missingType
    case unsupportedPattern

    var message: String {
        switch self {
        case .notStructOrEnum: return "@Generable applies to structs and enums"
        case .missingType: return "a stored property of a @Generable type needs an explicit type annotation"
        case .unsupportedPattern: return "@Generable needs one name per stored property (no tuple patterns)"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "GenerableMacros", id: rawValue) }
    var severity: DiagnosticSeverity { .error }
}
