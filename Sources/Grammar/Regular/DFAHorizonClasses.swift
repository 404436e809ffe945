/// A pattern DFA's states grouped by how far ahead they can be told apart.
///
/// At horizon `r`, two states share a class iff every byte string of at most `r` bytes either
/// keeps both live or kills both (Moore's partition refinement, stopped after `r` rounds; the
/// start partition is "every live state", since a walk only asks whether a transition dies). A
/// trie walk below a node whose longest token continues `r` bytes therefore takes the same tokens
/// from any two states of one class — which is what lets the masks of different pattern states
/// share subtrees: a counter such as `(\S+\s+){0,49}` has fifty states, but seen ten words ahead
/// almost all of them are one class.
///
/// Rounds are computed on demand and kept; refinement stops for good once a round splits nothing
/// (the partition is then the DFA's own, and every larger horizon reads it).
final class DFAHorizonClasses {
    private let table: UnsafePointer<Int32>
    private let stateCount: Int
    /// One byte per group of bytes whose transitions agree in every state.
    private let representatives: [UInt8]
    /// `rounds[r][state]`: the class at horizon `r` (the last round is final once `stable`).
    private var rounds: [[Int32]]
    /// Classes in the last round.
    private var lastClassCount = 1
    private var stable = false

    /// Refinement costs rounds × states × byte groups; above these it is not worth a cold mask,
    /// and every state is its own class (sharing then needs equal states).
    static let maxRefinedStates = 1024
    static let maxRefinedWork = 16_384

    /// Classes of the DFA whose transitions `table` holds (`state * 256 + byte` → state or -1).
    init(table: UnsafePointer<Int32>, stateCount: Int) {
        self.table = table
        self.stateCount = stateCount
        let identity = [(0..<stateCount).map { Int32($0) }]
        guard stateCount <= DFAHorizonClasses.maxRefinedStates else {
            representatives = []
            rounds = identity
            stable = true
            return
        }
        let reps = ByteDFA.columnRepresentatives(table, stateCount: stateCount)
        representatives = reps
        guard stateCount * reps.count <= DFAHorizonClasses.maxRefinedWork else {
            rounds = identity
            stable = true
            return
        }
        rounds = [[Int32](repeating: 0, count: stateCount)]
    }

    /// The class of `state` at horizon `r`.
    @inline(__always) func classOf(_ state: Int32, atHorizon r: Int) -> Int32 {
        if rounds.count <= r && !stable { ensure(r) }
        return rounds[min(r, rounds.count - 1)][Int(state)]
    }

    @inline(never) private func ensure(_ r: Int) {
        while rounds.count <= r && !stable { refine() }
    }

    /// Approximate bytes held.
    var retainedBytes: Int { rounds.count * stateCount * 4 + representatives.count }

    /// One round: a state's new class is its old class and the old classes its bytes lead to.
    private func refine() {
        let old = rounds[rounds.count - 1]
        let width = representatives.count + 1
        var signatures = [Int32](repeating: 0, count: stateCount * width)
        for q in 0..<stateCount {
            let row = q * width
            signatures[row] = old[q]
            for (k, b) in representatives.enumerated() {
                let t = table[q * 256 + Int(b)]
                signatures[row + 1 + k] = t < 0 ? -1 : old[Int(t)]
            }
        }
        // Exact interning of the signatures: open addressing over state indices, rows compared in full.
        var slots = [Int32](repeating: -1, count: max(16, (stateCount * 2).nextPowerOfTwo))
        let mask = slots.count - 1
        var next = [Int32](repeating: 0, count: stateCount)
        var classCount: Int32 = 0
        var firstOfClass: [Int] = []
        signatures.withUnsafeBufferPointer { sig in
            for q in 0..<stateCount {
                var h: UInt64 = 0xcbf2_9ce4_8422_2325
                for k in 0..<width { h = (h ^ UInt64(UInt32(bitPattern: sig[q * width + k]))) &* 0x100_0000_01b3 }
                var s = Int(truncatingIfNeeded: h ^ (h >> 29)) & mask
                while true {
                    let c = slots[s]
                    if c < 0 {
                        slots[s] = classCount
                        firstOfClass.append(q)
                        next[q] = classCount
                        classCount += 1
                        break
                    }
                    let p = firstOfClass[Int(c)]
                    var same = true
                    for k in 0..<width where sig[p * width + k] != sig[q * width + k] { same = false; break }
                    if same { next[q] = c; break }
                    s = (s + 1) & mask
                }
            }
        }
        if Int(classCount) == lastClassCount {
            stable = true
            return
        }
        lastClassCount = Int(classCount)
        rounds.append(next)
    }
}

private extension Int {
    var nextPowerOfTwo: Int {
        var p = 1
        while p < self { p <<= 1 }
        return p
    }
}
