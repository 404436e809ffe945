/// Plans the shortest way to finish: from a matcher's state, the fewest bytes that reach a complete
/// sentence. Generation under a token budget uses it to stop opening structure it could not close
/// and to close what is open before the budget runs out.
///
/// Distances are a property of the automaton's configurations, so they are remembered per
/// configuration: inside a long string or a repeated structure the same configuration comes back
/// and costs one lookup. Not thread-safe; use one planner per matcher family (forks share an
/// automaton, so they may share a planner).
public final class GrammarCompletionPlanner {
    private let automaton: GrammarAutomaton
    /// Configuration → shortest completing bytes (nil entry: search gave up).
    private var known: [Int32: [UInt8]?] = [:]
    /// Most configurations one search may visit before it reports "unknown".
    public let explorationLimit: Int
    /// Exact distances from the grammar's structure, built on first use.
    private var distanceTable: CompletionDistances?
    private var distances: CompletionDistances {
        if let d = distanceTable { return d }
        let d = CompletionDistances(automaton: automaton)
        distanceTable = d
        return d
    }

    /// A planner for matchers of `matcher`'s family.
    public init(matcher: GrammarMatcher, explorationLimit: Int = 20_000) {
        automaton = matcher.automaton
        self.explorationLimit = explorationLimit
    }

    /// The shortest byte string that completes `matcher` (empty when it is complete already); nil
    /// when the matcher is dead or terminated, or cannot be completed, or (only for grammars whose
    /// per-node searches are unbounded) when no completion was found within the search limits.
    ///
    /// Walks down the exact distance table (`CompletionDistances`), so the result is a shortest
    /// string; ties go to the smallest byte, which keeps plans deterministic.
    public func shortestCompletion(of matcher: GrammarMatcher) -> [UInt8]? {
        precondition(matcher.automaton === automaton, "planner used with a matcher of another grammar")
        let start = matcher.current
        guard start >= 0 else { return nil }
        if let memo = known[start] { return memo }
        let result = walk(from: start) ?? search(from: start) ?? probe(from: start)
        known[start] = .some(result)
        return result
    }

    /// The fewest bytes to completion (see `shortestCompletion(of:)`); cheap once the current
    /// configuration has been seen, since distances are remembered per configuration.
    public func shortestCompletionLength(of matcher: GrammarMatcher) -> Int? {
        let start = matcher.current
        guard start >= 0 else { return nil }
        if let d = distances.distance(start) {
            return d < CompletionDistances.unreachable ? d : nil
        }
        return shortestCompletion(of: matcher)?.count
    }

    /// Follows strictly decreasing distances to an accepting configuration: each step takes the
    /// smallest byte whose successor is one byte nearer.
    private func walk(from start: Int32) -> [UInt8]? {
        guard let total = distances.distance(start), total < CompletionDistances.unreachable else { return nil }
        var c = start
        var left = total
        var bytes: [UInt8] = []
        bytes.reserveCapacity(total)
        while left > 0 {
            var moved = false
            for b in 0..<256 {
                let n = automaton.next(c, UInt8(b))
                guard n >= 0, let d = distances.distance(n), d == left - 1 else { continue }
                bytes.append(UInt8(b))
                c = n
                left = d
                moved = true
                break
            }
            // Distances are exact, so a nearer successor always exists; if the automaton hit a
            // safety budget it may not, and the callers fall back to searching.
            if !moved { return nil }
        }
        return automaton.cfgAccept[Int(c)] ? bytes : nil
    }

    /// When the exhaustive search is too wide (open-ended values nest without bound), a greedy
    /// walk that prefers closing bytes still finds *a* completion — not always the shortest, but
    /// budgeting only needs one that fits.
    private func probe(from start: Int32) -> [UInt8]? {
        let preference: [UInt8] = Array("}]\"0:,a1".utf8)
        var c = start
        var bytes: [UInt8] = []
        var seen: Set<Int32> = [start]
        while bytes.count < 256 {
            if automaton.cfgAccept[Int(c)] { return bytes }
            var moved = false
            for b in preference {
                let n = automaton.next(c, b)
                if n >= 0, !seen.contains(n) {
                    seen.insert(n)
                    bytes.append(b)
                    c = n
                    moved = true
                    break
                }
            }
            if !moved { return nil }
        }
        return nil
    }

    private func search(from start: Int32) -> [UInt8]? {
        if automaton.cfgAccept[Int(start)] { return [] }
        // parent[c] = (previous configuration, byte taken); the queue holds configurations in
        // order of distance.
        var parent: [Int32: (Int32, UInt8)] = [start: (-1, 0)]
        var queue: [Int32] = [start]
        var head = 0
        while head < queue.count {
            let c = queue[head]
            head += 1
            for b in 0..<256 {
                let n = automaton.next(c, UInt8(b))
                guard n >= 0, parent[n] == nil else { continue }
                parent[n] = (c, UInt8(b))
                if automaton.cfgAccept[Int(n)] {
                    var bytes: [UInt8] = []
                    var at = n
                    while at != start, let (p, byte) = parent[at] {
                        bytes.append(byte)
                        at = p
                    }
                    return bytes.reversed()
                }
                queue.append(n)
                if queue.count > explorationLimit { return nil }
            }
        }
        return nil
    }
}
