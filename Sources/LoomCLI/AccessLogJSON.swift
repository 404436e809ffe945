import HTTPServer
import LoomJSON

/// `loom serve --log-format json`: one JSON object per request on one line — the request id,
/// method, path, status, how the exchange ended and its duration, then what the handler noted
/// (the generation's outcome, tokens, cached prompt tokens, time to first token).
enum AccessLogJSON {
    static func line(_ record: HTTPAccessRecord) -> String {
        let (seconds, attoseconds) = record.duration.components
        var object = JSONObject([
            ("id", .string(record.requestID)),
            ("method", .string(record.method)),
            ("path", .string(record.path)),
            ("status", record.status.map { .number(JSONNumber($0)) } ?? .null),
            ("exchange", .string("\(record.outcome)")),
            ("duration_seconds", .number(JSONNumber(Double(seconds) + Double(attoseconds) * 1e-18))),
        ])
        for (key, value) in record.notes where object[key] == nil { object[key] = value }
        return JSONValue.object(object).serialized()
    }
}
