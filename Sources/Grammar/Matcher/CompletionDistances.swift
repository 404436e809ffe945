/// The fewest bytes that finish each automaton configuration, derived from the grammar's structure
/// instead of a search over configurations.
///
/// A configuration is a set of parser stacks and a stack is a chain of frames `(node, state)`, each
/// frame holding the state its node returns to. So the distance of a configuration is the least,
/// over its stacks, of the sum of its frames' distances, and a frame's distance only depends on
/// its node and state. Frame distances come from a small shortest-path search inside one node
/// (bytes cost 1, a call costs the callee's minimum length), and callee minimum lengths from a
/// fixpoint over the nodes computed once. A search over whole configurations, by contrast, has to
/// visit every configuration nearer than the goal — inside a string that includes every partial
/// `\uXXXX` escape, tens of thousands of configurations — and gives up on ordinary schemas.
///
/// Not thread-safe; owned by one `GrammarCompletionPlanner`.
final class CompletionDistances {
    /// Stands for "cannot complete" (a dead end).
    static let unreachable = Int.max / 4
    /// Most states one frame search may settle before it reports "unknown" (nil).
    static let frameSearchLimit = 20_000

    private let automaton: GrammarAutomaton
    /// Per node: fewest bytes from its initial state to done (`unreachable` when none or unknown).
    private var nodeMinimum: [Int]
    /// `(node << 32) | state` → frame distance; -1 marks a search that gave up.
    private var frames: [Int64: Int] = [:]
    /// Per stack id: distance, -2 not computed, -1 unknown.
    private var stacks: [Int] = []
    /// Per configuration id: distance, -2 not computed, -1 unknown.
    private var configurations: [Int] = []

    init(automaton: GrammarAutomaton) {
        self.automaton = automaton
        nodeMinimum = Array(repeating: CompletionDistances.unreachable, count: automaton.nodes.count)
        // Bellman–Ford style: each pass can only lower minima, and a minimal derivation of depth k
        // is found by pass k. Recursive grammars converge because minimal derivations never nest
        // a node inside itself.
        // Nodes that call no children are exact after the first pass.
        let callsChildren = automaton.nodes.map { node -> Bool in
            switch node {
            case .literal, .bytes, .dfa, .string, .number, .fail: return false
            default: return true
            }
        }
        var changed = true
        var passes = 0
        while changed && passes <= automaton.nodes.count {
            changed = false
            passes += 1
            for n in stride(from: automaton.nodes.count - 1, through: 0, by: -1) {
                if passes > 1 && !callsChildren[n] { continue }
                let node = Int32(n)
                guard let d = search(node, automaton.initialState(node)) else { continue }
                if d < nodeMinimum[n] {
                    nodeMinimum[n] = d
                    changed = true
                }
            }
        }
    }

    /// Fewest bytes that finish configuration `c` (0 when it accepts); nil when unknown;
    /// `unreachable` when it cannot finish.
    func distance(_ c: Int32) -> Int? {
        let i = Int(c)
        if i < configurations.count, configurations[i] != -2 {
            return configurations[i] == -1 ? nil : configurations[i]
        }
        if configurations.count < automaton.configurationCount {
            configurations.append(contentsOf: repeatElement(-2, count: automaton.configurationCount - configurations.count))
        }
        var best: Int? = nil
        if automaton.cfgAccept[i] {
            best = 0
        } else {
            var unknown = false
            var lowest = CompletionDistances.unreachable
            for s in automaton.cfgReady[i] {
                if let d = stackDistance(s) { lowest = min(lowest, d) } else { unknown = true }
            }
            // With an unknown stack, the known minimum is still a length some completion has, but
            // not necessarily the shortest: report unknown so callers do not plan on it.
            best = unknown ? nil : lowest
        }
        configurations[i] = best ?? -1
        return best
    }

    private func stackDistance(_ s: Int32) -> Int? {
        if s == 0 { return 0 }
        if s == GrammarAutomaton.sentinel { return CompletionDistances.unreachable }
        let i = Int(s)
        if stacks.count <= i { stacks.append(contentsOf: repeatElement(-2, count: i + 1 - stacks.count)) }
        if stacks[i] != -2 { return stacks[i] == -1 ? nil : stacks[i] }
        var total = 0
        var cur = s
        var result: Int? = nil
        while true {
            if cur == 0 { result = total; break }
            if cur == GrammarAutomaton.sentinel { result = CompletionDistances.unreachable; break }
            let ci = Int(cur)
            if ci < stacks.count, stacks[ci] >= 0 {
                result = min(CompletionDistances.unreachable, total + stacks[ci])
                break
            }
            guard let d = frameDistance(automaton.stNode[ci], automaton.stState[ci]) else { break }
            total = min(CompletionDistances.unreachable, total + d)
            cur = automaton.stParent[ci]
        }
        stacks[i] = result ?? -1
        return result
    }

    private func frameDistance(_ node: Int32, _ state: Int32) -> Int? {
        let key = Int64(node) << 32 | Int64(UInt32(bitPattern: state))
        if let d = frames[key] { return d < 0 ? nil : d }
        let d = search(node, state)
        frames[key] = d ?? -1
        return d
    }

    /// Shortest path inside one node from `state` to done (Dijkstra over the node's own states;
    /// bytes cost 1, calls cost the callee's current minimum).
    private func search(_ node: Int32, _ state: Int32) -> Int? {
        let inf = CompletionDistances.unreachable
        var dist: [Int32: Int] = [state: 0]
        var heap = MinHeap()
        heap.push(0, state)
        var best = inf
        var settled = 0
        while let (d, s) = heap.pop() {
            if d >= best { break }
            guard dist[s] == d else { continue }
            settled += 1
            if settled > CompletionDistances.frameSearchLimit { return nil }
            automaton.forEachMove(node, s) { move in
                switch move {
                case .done:
                    best = min(best, d)
                case .call(let child, let ret):
                    let m = nodeMinimum[Int(child)]
                    guard m < inf else { return }
                    let nd = d + m
                    if nd < dist[ret] ?? inf {
                        dist[ret] = nd
                        heap.push(nd, ret)
                    }
                }
            }
            if automaton.canConsume(node, s), d + 1 < best {
                for b in 0..<256 {
                    let ns = automaton.consume(node, s, UInt8(b))
                    guard ns >= 0 else { continue }
                    if d + 1 < dist[ns] ?? inf {
                        dist[ns] = d + 1
                        heap.push(d + 1, ns)
                    }
                }
            }
        }
        return best
    }
}

/// A binary min-heap of (distance, state) for the frame searches.
private struct MinHeap {
    private var items: [(Int, Int32)] = []

    mutating func push(_ d: Int, _ s: Int32) {
        items.append((d, s))
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if items[p].0 <= items[i].0 { break }
            items.swapAt(p, i)
            i = p
        }
    }

    mutating func pop() -> (Int, Int32)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count, items[l].0 < items[m].0 { m = l }
                if r < items.count, items[r].0 < items[m].0 { m = r }
                if m == i { break }
                items.swapAt(m, i)
                i = m
            }
        }
        return top
    }
}
