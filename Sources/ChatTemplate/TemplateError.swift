/// A failure while parsing or rendering a chat template.
///
/// Each kind corresponds to the Python exception that Jinja2 (as Hugging Face runs it) raises
/// in the same situation, so callers can compare against reference outputs and users see the
/// failure they would see with `transformers`.
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, by the Python exception class it mirrors.
    public enum Kind: Sendable, Equatable {
        /// The template text is malformed (`TemplateSyntaxError`).
        case syntax
        /// The template names a filter or test that does not exist (`TemplateAssertionError`,
        /// raised when the template is loaded unless the use is guarded by an `if`).
        case assertion
        /// The template called `raise_exception(message)` (`TemplateError`).
        case raised
        /// An undefined value was used in a way that needs a value (`UndefinedError`).
        case undefined
        /// An operation was applied to a value of the wrong type (`TypeError`).
        case type
        /// A value had the right type but an unusable value (`ValueError`, `IndexError`, `KeyError`).
        case value
        /// Division or modulo by zero, or an arithmetic overflow (`ZeroDivisionError`, `OverflowError`).
        case arithmetic
        /// The sandbox refused an operation, e.g. mutating a list (`SecurityError`).
        case security
        /// A Jinja runtime failure, e.g. an unknown filter (`TemplateRuntimeError`).
        case runtime
        /// A filter got an argument it cannot use (`FilterArgumentError`).
        case filterArgument
        /// A Python attribute lookup failed inside a filter (`AttributeError`).
        case attribute
        /// A resource budget was exceeded (recursion depth, output size, iteration count).
        case limit
    }

    /// The failure's kind.
    public let kind: Kind
    /// The message, worded as Python's exception would be where that is known.
    public let message: String
    /// 1-based source line for syntax errors.
    public let line: Int?
    /// 1-based source column (in Unicode scalars) for syntax errors.
    public let column: Int?

    /// Creates an error of `kind` with `message`.
    public init(_ kind: Kind, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
    }

    /// The name of the Python exception class this failure corresponds to.
    public var pythonClassName: String {
        switch kind {
        case .syntax: return "TemplateSyntaxError"
        case .assertion: return "TemplateAssertionError"
        case .raised: return "TemplateError"
        case .undefined: return "UndefinedError"
        case .type: return "TypeError"
        case .value: return "ValueError"
        case .arithmetic: return "ZeroDivisionError"
        case .security: return "SecurityError"
        case .runtime: return "TemplateRuntimeError"
        case .filterArgument: return "FilterArgumentError"
        case .attribute: return "AttributeError"
        case .limit: return "ResourceLimitError"
        }
    }

    /// `"<class>: <message>"`, plus the position for syntax errors.
    public var description: String {
        if let line, let column { return "\(pythonClassName): \(message) (line \(line), column \(column))" }
        return "\(pythonClassName): \(message)"
    }

    static func type(_ message: String) -> TemplateError { TemplateError(.type, message) }
    static func value(_ message: String) -> TemplateError { TemplateError(.value, message) }
    static func runtime(_ message: String) -> TemplateError { TemplateError(.runtime, message) }
}
