/// The Prometheus metric types Loom exposes.
public enum MetricKind: String, Sendable, Hashable {
    /// A value that only goes up (resets to zero when the process restarts).
    case counter
    /// A value that goes up and down.
    case gauge
    /// Observations counted into fixed buckets, with their count and sum.
    case histogram
}
