// Typed reads of one JSON object of a request body. Every read names the field's full path
// (`messages[1].tool_calls[0].function.arguments`) so a wrong type or value comes back as a
// 400 that says exactly which field to fix. JSON `null` reads as "absent", as in OpenAI's API.
import LoomJSON

struct RequestFields {
    let object: JSONObject
    /// The object's own path ("" for the body).
    let path: String

    init(_ object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
    }

    /// Reads `value` as an object at `path`, or fails with a type error.
    init(_ value: JSONValue, path: String) throws(ChatCompletionsServiceError) {
        guard case .object(let object) = value else { throw .invalidType(path, expected: "an object") }
        self.init(object, path: path)
    }

    func param(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member, with `null` read as absent.
    func value(_ key: String) -> JSONValue? {
        guard let v = object[key], !v.isNull else { return nil }
        return v
    }

    func string(_ key: String) throws(ChatCompletionsServiceError) -> String? {
        guard let v = value(key) else { return nil }
        guard case .string(let s) = v else { throw .invalidType(param(key), expected: "a string") }
        return s
    }

    func requiredString(_ key: String) throws(ChatCompletionsServiceError) -> String {
        guard let s = try string(key) else { throw .missing(param(key)) }
        return s
    }

    func bool(_ key: String) throws(ChatCompletionsServiceError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard case .bool(let b) = v else { throw .invalidType(param(key), expected: "a boolean") }
        return b
    }

    func double(_ key: String) throws(ChatCompletionsServiceError) -> Double? {
        guard let v = value(key) else { return nil }
        guard case .number(let n) = v, n.doubleValue.isFinite else { throw .invalidType(param(key), expected: "a number") }
        return n.doubleValue
    }

    /// An integer; `2.0` is accepted (JSON does not distinguish), `2.5` is not.
    func int(_ key: String) throws(ChatCompletionsServiceError) -> Int? {
        guard let v = value(key) else { return nil }
        guard case .number(let n) = v, let i = n.intValue else { throw .invalidType(param(key), expected: "an integer") }
        return i
    }

    func array(_ key: String) throws(ChatCompletionsServiceError) -> [JSONValue]? {
        guard let v = value(key) else { return nil }
        guard case .array(let a) = v else { throw .invalidType(param(key), expected: "an array") }
        return a
    }

    func fields(_ key: String) throws(ChatCompletionsServiceError) -> RequestFields? {
        guard let v = value(key) else { return nil }
        return try RequestFields(v, path: param(key))
    }

    /// Fails with `unknown_parameter` for the first member not in `known`.
    func rejectUnknown(_ known: Set<String>) throws(ChatCompletionsServiceError) {
        for key in object.keys where !known.contains(key) {
            throw .invalidValue(param(key), "Unrecognized request argument supplied: '\(param(key))'.", code: "unknown_parameter")
        }
    }
}
