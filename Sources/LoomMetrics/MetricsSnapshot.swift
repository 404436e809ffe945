/// Every series of a registry at one moment: what a service exports (as Prometheus text with
/// `prometheusText()`, or in any format of its own).
public struct MetricsSnapshot: Sendable, Equatable {
    /// The families, in registration order.
    public var families: [MetricFamily]

    /// Creates a snapshot.
    public init(families: [MetricFamily]) {
        self.families = families
    }

    /// The family named `name` (for counters, the name with its `_total` suffix), if any.
    public func family(_ name: String) -> MetricFamily? {
        families.first { $0.name == name }
    }

    /// The counter or gauge value of the series `name{labels}`, if it exists.
    public func value(_ name: String, labels: [String: String] = [:]) -> Double? {
        guard case .scalar(let v)? = family(name)?.series(labels)?.value else { return nil }
        return v
    }

    /// The histogram value of the series `name{labels}`, if it exists.
    public func histogram(_ name: String, labels: [String: String] = [:]) -> HistogramValue? {
        guard case .histogram(let h)? = family(name)?.series(labels)?.value else { return nil }
        return h
    }
}

/// One metric name: its type, its help text, and one series per label set.
public struct MetricFamily: Sendable, Equatable {
    /// The metric name, e.g. `loom_requests_total`.
    public var name: String
    /// What the metric means, in one line.
    public var help: String
    /// Counter, gauge or histogram.
    public var kind: MetricKind
    /// The series, in registration order.
    public var series: [MetricSeries]

    /// Creates a family.
    public init(name: String, help: String, kind: MetricKind, series: [MetricSeries]) {
        self.name = name
        self.help = help
        self.kind = kind
        self.series = series
    }

    /// The series with exactly `labels`.
    public func series(_ labels: [String: String]) -> MetricSeries? {
        series.first { $0.labels == labels }
    }
}

/// One time series: a label set and its value.
public struct MetricSeries: Sendable, Equatable {
    /// Label names and values (bounded sets chosen when the series is registered).
    public var labels: [String: String]
    /// The value.
    public var value: MetricValue

    /// Creates a series.
    public init(labels: [String: String], value: MetricValue) {
        self.labels = labels
        self.value = value
    }
}

/// A series' value.
public enum MetricValue: Sendable, Equatable {
    /// A counter's or gauge's value.
    case scalar(Double)
    /// A histogram's buckets, count and sum.
    case histogram(HistogramValue)
}
