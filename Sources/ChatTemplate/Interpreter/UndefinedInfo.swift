/// Why a value is undefined; decides the message when it is used.
struct UndefinedInfo {
    /// The missing name (variable, attribute or key), already in Python `repr` form when it is an element.
    var name: String?
    /// The object it was looked up on, as Python's `object_type_repr`, or nil for a missing variable.
    var owner: String?
    /// True when the lookup key was not a string (`has no element`).
    var isElement = false
    /// A fixed message that replaces the generated one.
    var hint: String?
    /// Using this value is a sandbox violation, not a plain undefined error.
    var security = false

    init(name: String? = nil, owner: String? = nil, isElement: Bool = false, hint: String? = nil, security: Bool = false) {
        self.name = name
        self.owner = owner
        self.isElement = isElement
        self.hint = hint
        self.security = security
    }

    /// Jinja2's `Undefined._undefined_message`.
    var message: String {
        if let hint { return hint }
        guard let owner else { return "'\(name ?? "")' is undefined" }
        if isElement { return "\(owner) has no element \(name ?? "")" }
        return "'\(owner)' has no attribute '\(name ?? "")'"
    }

    var error: TemplateError { TemplateError(security ? .security : .undefined, message) }
}
