// The Prometheus text exposition format, version 0.0.4: `# HELP` and `# TYPE` lines, then one
// line per sample; histograms as cumulative `_bucket{le=…}` samples ending at `+Inf`, then
// `_sum` and `_count`. Escaping: `\` and newline in help text; `\`, `"` and newline in label values.

extension MetricsSnapshot {
    /// The `Content-Type` of `prometheusText()`.
    public static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The snapshot in Prometheus text exposition format 0.0.4 (what `GET /metrics` serves).
    public func prometheusText() -> String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(Self.escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for series in family.series {
                let labels = series.labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                switch series.value {
                case .scalar(let v):
                    out += "\(family.name)\(Self.labelText(labels)) \(Self.number(v))\n"
                case .histogram(let h):
                    for (i, count) in h.cumulativeCounts.enumerated() {
                        let le = i < h.upperBounds.count ? Self.number(h.upperBounds[i]) : "+Inf"
                        out += "\(family.name)_bucket\(Self.labelText(labels + [("le", le)])) \(count)\n"
                    }
                    out += "\(family.name)_sum\(Self.labelText(labels)) \(Self.number(h.sum))\n"
                    out += "\(family.name)_count\(Self.labelText(labels)) \(h.count)\n"
                }
            }
        }
        return out
    }

    /// `{a="x",b="y"}`, or nothing without labels.
    static func labelText(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.0)=\"\(escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
    }

    /// A sample value: integral values without a fraction, others in Swift's shortest
    /// round-tripping form (which Prometheus' float parser reads), and `+Inf`, `-Inf`, `NaN`.
    static func number(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    static func escapeHelp(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    static func escapeLabelValue(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }
}

extension String {
    /// Every occurrence of `target` replaced (without Foundation, which this module does not link).
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
