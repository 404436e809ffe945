import Grammar
import LoomSupport

/// Guided-decoding state kept between requests, per compiled grammar: a request for a schema
/// seen before takes a matcher whose automaton, cached masks and completion distances were
/// built by earlier requests, so its masks are warm from the first token instead of cold walks
/// of the whole vocabulary.
///
/// A guide is used by one generation at a time: `take` hands out an idle one (or builds a new
/// one), `giveBack` rewinds it to the grammar's start and keeps it. Idle guides are bounded by a
/// byte budget over what they have learned (`GrammarMatcher.retainedBytes`), least recently
/// returned evicted first; a guide larger than the whole budget is not kept.
final class WarmGuides: Sendable {
    private struct Idle {
        let guide: GuidedDecoding
        let bytes: Int
        let stamp: UInt64
    }

    private struct Store {
        var idle: [ObjectIdentifier: [Idle]] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    /// The most bytes idle guides may hold together.
    let budget: Int
    private let store = Locked(Store())

    init(budget: Int) {
        self.budget = budget
    }

    /// An idle guide for `grammar` (warm), or `make()`'s new one.
    func take(for grammar: Grammar, make: () -> GuidedDecoding) -> GuidedDecoding {
        let key = ObjectIdentifier(grammar)
        let warm: GuidedDecoding? = store.withLock { s in
            guard var list = s.idle[key], let last = list.popLast() else {
                s.misses += 1
                return nil
            }
            s.idle[key] = list.isEmpty ? nil : list
            s.bytes -= last.bytes
            s.hits += 1
            return last.guide
        }
        return warm ?? make()
    }

    /// Keeps `guide` for the next request of its grammar, rewound to the start.
    func giveBack(_ guide: GuidedDecoding) {
        guide.rewind()
        let bytes = guide.retainedBytes
        guard bytes <= budget else { return }
        let key = ObjectIdentifier(guide.matcher.grammar)
        // Evicted guides are released outside the lock (their automata free large tables).
        let evicted: [GuidedDecoding] = store.withLock { s in
            s.clock += 1
            s.idle[key, default: []].append(Idle(guide: guide, bytes: bytes, stamp: s.clock))
            s.bytes += bytes
            var out: [GuidedDecoding] = []
            while s.bytes > budget, let oldest = Self.oldest(s.idle) {
                var list = s.idle[oldest.key]!
                let gone = list.remove(at: oldest.index)
                s.idle[oldest.key] = list.isEmpty ? nil : list
                s.bytes -= gone.bytes
                out.append(gone.guide)
            }
            return out
        }
        _ = evicted
    }

    /// What the store holds and how often it served.
    struct Statistics: Sendable {
        /// Idle guides.
        var guides: Int
        /// Bytes they hold.
        var bytes: Int
        /// Takes that found a warm guide.
        var hits: Int
        /// Takes that built a new one.
        var misses: Int
    }

    /// Idle guides and their bytes, and how many takes found a warm guide.
    var statistics: Statistics {
        store.withLock { s in
            Statistics(guides: s.idle.values.reduce(0) { $0 + $1.count }, bytes: s.bytes, hits: s.hits, misses: s.misses)
        }
    }

    private static func oldest(_ idle: [ObjectIdentifier: [Idle]]) -> (key: ObjectIdentifier, index: Int)? {
        var best: (key: ObjectIdentifier, index: Int, stamp: UInt64)?
        for (key, list) in idle {
            for (i, e) in list.enumerated() where best == nil || e.stamp < best!.stamp { best = (key, i, e.stamp) }
        }
        return best.map { ($0.key, $0.index) }
    }
}
