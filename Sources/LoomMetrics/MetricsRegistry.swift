import LoomSupport

/// A set of named metrics with no dependency beyond Loom's own lock: counters, gauges and
/// fixed-bucket histograms, plus values read from their owner when a snapshot is taken.
///
/// Registering takes the registry's one lock and is meant for setup; it returns an instrument
/// that records lock-free and without allocating (`Counter`, `Gauge`, `Histogram`), so the
/// instruments can sit on per-token paths. Registering a name and label set again returns the
/// instrument already there, so independent parts of a program (a model's runtime and the HTTP
/// service in front of it) can each ask for the series they record into and share them.
///
/// Label values are fixed when a series is registered, so a registry's cardinality is what its
/// owners register up front: never a per-request value.
///
/// ```swift
/// let metrics = MetricsRegistry()
/// let served = metrics.counter("app_requests_total", help: "Requests served.", labels: ["outcome": "ok"])
/// served.increment()
/// let text = metrics.snapshot().prometheusText()   // GET /metrics
/// ```
public final class MetricsRegistry: Sendable {
    /// A value read when a snapshot is taken; nil when its owner is gone (the source is dropped).
    public typealias Source = @Sendable () -> Double?

    private enum Instrument {
        case counter(Counter)
        case gauge(Gauge)
        case histogram(Histogram)
    }

    private struct Series {
        var labels: [String: String]
        var instrument: Instrument?
        /// Read at snapshot time and summed (several owners may feed one series).
        var sources: [(id: Int, read: Source)] = []
    }

    private struct Family {
        var name: String
        var help: String
        var kind: MetricKind
        var upperBounds: [Double]?
        var series: [Series] = []
    }

    private struct State {
        var families: [Family] = []
        var nextSourceID = 0
    }

    private let state = Locked(State())

    /// An empty registry.
    public init() {}

    // MARK: - Registration

    /// The counter `name{labels}`, registered on first use.
    /// - Precondition: `name` and the label names are valid Prometheus names, and `name` is not
    ///   registered as another kind.
    public func counter(_ name: String, help: String, labels: [String: String] = [:]) -> Counter {
        let found = instrument(name, help: help, kind: .counter, upperBounds: nil, labels: labels) { .counter(Counter()) }
        guard case .counter(let c) = found else { preconditionFailure("\(name) is not a counter") }
        return c
    }

    /// The gauge `name{labels}`, registered on first use.
    public func gauge(_ name: String, help: String, labels: [String: String] = [:]) -> Gauge {
        let found = instrument(name, help: help, kind: .gauge, upperBounds: nil, labels: labels) { .gauge(Gauge()) }
        guard case .gauge(let g) = found else { preconditionFailure("\(name) is not a gauge") }
        return g
    }

    /// The histogram `name{labels}` with `buckets` as its upper bounds, registered on first use.
    /// - Precondition: the bounds are finite and ascending, and equal to those of the family's
    ///   other series.
    public func histogram(_ name: String, help: String, buckets: [Double], labels: [String: String] = [:]) -> Histogram {
        let found = instrument(name, help: help, kind: .histogram, upperBounds: buckets, labels: labels) {
            .histogram(Histogram(upperBounds: buckets))
        }
        guard case .histogram(let h) = found else { preconditionFailure("\(name) is not a histogram") }
        return h
    }

    /// Adds a source to the counter `name{labels}`: `read` is called at every snapshot (outside
    /// the registry's lock) and its value added to the series. Return nil once the owner is gone
    /// (capture it weakly) and the source is dropped.
    public func counter(_ name: String, help: String, labels: [String: String] = [:], source read: @escaping Source) {
        addSource(name, help: help, kind: .counter, labels: labels, read)
    }

    /// Adds a source to the gauge `name{labels}`, as `counter(_:help:labels:source:)` does.
    public func gauge(_ name: String, help: String, labels: [String: String] = [:], source read: @escaping Source) {
        addSource(name, help: help, kind: .gauge, labels: labels, read)
    }

    // MARK: - Reading

    /// Every family and series with its value now. Sources are read after the lock is released,
    /// so a source may take locks of its own.
    public func snapshot() -> MetricsSnapshot {
        let families = state.withLock { $0.families }
        var dropped: [Int] = []
        var out: [MetricFamily] = []
        out.reserveCapacity(families.count)
        for family in families {
            var series: [MetricSeries] = []
            for s in family.series {
                let value: MetricValue
                switch s.instrument {
                case .histogram(let h)?:
                    value = .histogram(h.value)
                case .counter(let c)?:
                    value = .scalar(Double(c.value) + read(s.sources, dropping: &dropped).total)
                case .gauge(let g)?:
                    value = .scalar(g.value + read(s.sources, dropping: &dropped).total)
                case nil:
                    let (total, live) = read(s.sources, dropping: &dropped)
                    // A series fed only by sources whose owners are all gone is left out.
                    if live == 0 { continue }
                    value = .scalar(total)
                }
                series.append(MetricSeries(labels: s.labels, value: value))
            }
            out.append(MetricFamily(name: family.name, help: family.help, kind: family.kind, series: series))
        }
        if !dropped.isEmpty {
            state.withLock { s in
                for f in s.families.indices {
                    for i in s.families[f].series.indices {
                        s.families[f].series[i].sources.removeAll { dropped.contains($0.id) }
                    }
                }
            }
        }
        return MetricsSnapshot(families: out)
    }

    // MARK: - Internals

    /// The sum of the sources still alive, and how many were.
    private func read(_ sources: [(id: Int, read: Source)], dropping dropped: inout [Int]) -> (total: Double, live: Int) {
        var total = 0.0
        var live = 0
        for source in sources {
            if let v = source.read() {
                total += v
                live += 1
            } else {
                dropped.append(source.id)
            }
        }
        return (total, live)
    }

    private func instrument(_ name: String, help: String, kind: MetricKind, upperBounds: [Double]?,
                            labels: [String: String], make: () -> Instrument) -> Instrument {
        Self.validate(name, labels: labels, kind: kind)
        return state.withLock { s -> Instrument in
            let f = Self.family(&s, name, help: help, kind: kind, upperBounds: upperBounds)
            if let i = s.families[f].series.firstIndex(where: { $0.labels == labels }) {
                if let existing = s.families[f].series[i].instrument { return existing }
                let made = make()
                s.families[f].series[i].instrument = made
                return made
            }
            let made = make()
            s.families[f].series.append(Series(labels: labels, instrument: made))
            return made
        }
    }

    private func addSource(_ name: String, help: String, kind: MetricKind, labels: [String: String], _ read: @escaping Source) {
        Self.validate(name, labels: labels, kind: kind)
        state.withLock { s in
            let f = Self.family(&s, name, help: help, kind: kind, upperBounds: nil)
            let id = s.nextSourceID
            s.nextSourceID += 1
            if let i = s.families[f].series.firstIndex(where: { $0.labels == labels }) {
                s.families[f].series[i].sources.append((id, read))
            } else {
                s.families[f].series.append(Series(labels: labels, instrument: nil, sources: [(id, read)]))
            }
        }
    }

    /// The index of family `name`, added when new.
    private static func family(_ s: inout State, _ name: String, help: String, kind: MetricKind, upperBounds: [Double]?) -> Int {
        if let f = s.families.firstIndex(where: { $0.name == name }) {
            precondition(s.families[f].kind == kind, "metric \(name) is registered as a \(s.families[f].kind), not a \(kind)")
            if let upperBounds {
                precondition(s.families[f].upperBounds == upperBounds, "histogram \(name) is registered with other buckets")
            }
            return f
        }
        s.families.append(Family(name: name, help: help, kind: kind, upperBounds: upperBounds))
        return s.families.count - 1
    }

    /// Prometheus naming rules: metric names `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names
    /// `[a-zA-Z_][a-zA-Z0-9_]*` not starting with `__` (reserved), and no `le` on histograms.
    private static func validate(_ name: String, labels: [String: String], kind: MetricKind) {
        precondition(isName(name, colons: true), "invalid metric name '\(name)'")
        for label in labels.keys {
            precondition(isName(label, colons: false) && !label.hasPrefix("__"), "invalid label name '\(label)' on \(name)")
            precondition(kind != .histogram || label != "le", "histogram \(name) cannot have a label named 'le'")
        }
    }

    private static func isName(_ text: String, colons: Bool) -> Bool {
        guard !text.isEmpty else { return false }
        for (i, c) in text.utf8.enumerated() {
            let letter = (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || (colons && c == 0x3A)
            let digit = c >= 0x30 && c <= 0x39
            if !(letter || (i > 0 && digit)) { return false }
        }
        return true
    }
}
