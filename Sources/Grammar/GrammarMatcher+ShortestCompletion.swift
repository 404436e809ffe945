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

    /// A planner for matchers of `matcher`'s family.
    public init(matcher: GrammarMatcher, explorationLimit: Int = 20_000) {
        automaton = matcher.automaton
        self.explorationLimit = explorationLimit
    }

    /// The shortest byte string that completes `matcher` (empty when it is complete already); nil
    /// when the matcher is dead or terminated, or when the search exceeded `explorationLimit`.
    ///
    /// Breadth-first over byte transitions, so the result is a shortest string; ties go to the
    /// smallest byte, which keeps plans deterministic.
    public func shortestCompletion(of matcher: GrammarMatcher) -> [UInt8]? {
        precondition(matcher.automaton === automaton, "planner used with a matcher of another grammar")
        let start = matcher.current
        guard start >= 0 else { return nil }
        if let memo = known[start] { return memo }
        let result = search(from: start) ?? probe(from: start)
        known[start] = .some(result)
        return result
    }

    /// The fewest bytes to completion (see `shortestCompletion(of:)`).
    public func shortestCompletionLength(of matcher: GrammarMatcher) -> Int? {
        shortestCompletion(of: matcher)?.count
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
