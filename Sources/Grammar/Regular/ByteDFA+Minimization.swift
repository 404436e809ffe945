extension ByteDFA {
    /// The minimal DFA of the same language (Hopcroft's partition refinement).
    ///
    /// Subset construction leaves many equivalent states behind: a format regex such as a URI
    /// determinises into thousands of states, most of them copies that differ only in which NFA
    /// paths are still alive. Every later step pays per state — a mask is cached per pattern state,
    /// a cold state walks the whole token trie, horizon classes refine over all states — so the
    /// states are merged once, where the DFA is built. Because the result is renumbered breadth
    /// first by byte, two patterns with one language also become one interned DFA.
    func minimized() -> ByteDFA {
        let n = stateCount
        guard n > 1 else { return self }
        let total = n + 1  // state n is the dead sink the trimmed table leaves implicit
        // Bytes whose columns agree in every state split nothing apart from each other.
        let reps = trans.withUnsafeBufferPointer { ByteDFA.columnRepresentatives($0.baseAddress!, stateCount: n) }
        let k = reps.count
        // Predecessors per (target, byte class) in one compressed array.
        var revStart = [Int32](repeating: 0, count: total * k + 1)
        var revFrom = [Int32](repeating: 0, count: total * k)
        trans.withUnsafeBufferPointer { t in
            for q in 0..<total {
                for c in 0..<k {
                    let x = q < n ? Int(t[q * 256 + Int(reps[c])]) : -1
                    revStart[(x < 0 ? n : x) * k + c + 1] += 1
                }
            }
            for i in 0..<(total * k) { revStart[i + 1] += revStart[i] }
            var fill = Array(revStart[0..<(total * k)])
            for q in 0..<total {
                for c in 0..<k {
                    let x = q < n ? Int(t[q * 256 + Int(reps[c])]) : -1
                    let slot = (x < 0 ? n : x) * k + c
                    revFrom[Int(fill[slot])] = Int32(q)
                    fill[slot] += 1
                }
            }
        }

        // The partition: `elements` grouped by block, each block a range [first, past).
        var elements = [Int32](repeating: 0, count: total)
        var position = [Int32](repeating: 0, count: total)
        var blockOf = [Int32](repeating: 0, count: total)
        var first: [Int32] = [], past: [Int32] = [], marked: [Int32] = []
        var inWork: [Bool] = []
        var work: [Int32] = []
        do {
            var at = 0
            for group in 0..<3 {
                let start = at
                for q in 0..<total {
                    let g = q == n ? 2 : (accepting[q] ? 0 : 1)
                    guard g == group else { continue }
                    elements[at] = Int32(q)
                    position[q] = Int32(at)
                    blockOf[q] = Int32(first.count)
                    at += 1
                }
                if at > start {
                    first.append(Int32(start))
                    past.append(Int32(at))
                    marked.append(0)
                    inWork.append(true)
                    work.append(Int32(first.count - 1))
                }
            }
        }
        var splitter: [Int32] = []
        var touched: [Int32] = []
        while let b = work.popLast() {
            inWork[Int(b)] = false
            splitter.removeAll(keepingCapacity: true)
            splitter.append(contentsOf: elements[Int(first[Int(b)])..<Int(past[Int(b)])])
            for c in 0..<k {
                // Mark every state whose class-c byte enters the splitter: move it to the front of its block.
                for t in splitter {
                    let slot = Int(t) * k + c
                    for i in Int(revStart[slot])..<Int(revStart[slot + 1]) {
                        let p = Int(revFrom[i])
                        let x = Int(blockOf[p])
                        let m = Int(first[x] + marked[x])
                        let pos = Int(position[p])
                        guard pos >= m else { continue }  // already marked
                        if marked[x] == 0 { touched.append(Int32(x)) }
                        let other = elements[m]
                        elements[m] = Int32(p); position[p] = Int32(m)
                        elements[pos] = other; position[Int(other)] = Int32(pos)
                        marked[x] += 1
                    }
                }
                // Split each touched block into its marked front and the rest.
                for x32 in touched {
                    let x = Int(x32)
                    let m = Int(marked[x])
                    marked[x] = 0
                    let size = Int(past[x] - first[x])
                    guard m < size else { continue }
                    let y = first.count
                    let splitAt = first[x] + Int32(m)
                    first.append(splitAt)
                    past.append(past[x])
                    marked.append(0)
                    past[x] = splitAt
                    for i in Int(splitAt)..<Int(past[y]) { blockOf[Int(elements[i])] = Int32(y) }
                    if inWork[x] {
                        inWork.append(true)
                        work.append(Int32(y))
                    } else {
                        // Hopcroft's halving: the smaller half suffices as a splitter.
                        let smaller = m <= size - m ? x : y
                        inWork.append(false)
                        inWork[smaller] = true
                        work.append(Int32(smaller))
                    }
                }
                touched.removeAll(keepingCapacity: true)
            }
        }
        let sinkBlock = Int(blockOf[n])
        if first.count - 1 == n { return self }  // already minimal (n live blocks plus the sink)
        // One state per block; the raw init drops the sink's block and renumbers breadth first.
        let blocks = first.count
        var raw = [Int32](repeating: -1, count: blocks * 256)
        var acc = [Bool](repeating: false, count: blocks)
        // Block 0 must hold the start state: swap numbering so that state 0's block comes first.
        let startBlock = Int(blockOf[0])
        func id(_ b: Int) -> Int { b == startBlock ? 0 : (b == 0 ? startBlock : b) }
        trans.withUnsafeBufferPointer { t in
            for x in 0..<blocks where x != sinkBlock {
                let q = Int(elements[Int(first[x])])
                let row = id(x) * 256
                acc[id(x)] = accepting[q]
                for byte in 0..<256 {
                    let to = Int(t[q * 256 + byte])
                    if to >= 0 { raw[row + byte] = Int32(id(Int(blockOf[to]))) }
                }
            }
        }
        return ByteDFA(rawTrans: raw, rawAccepting: acc)
    }

    /// One byte per group of bytes whose transition columns agree in every state of `table`
    /// (`state * 256 + byte`): partition refinement need only look at one byte of each group.
    /// Columns are hashed in one row-major pass and compared in full only when hashes meet.
    static func columnRepresentatives(_ table: UnsafePointer<Int32>, stateCount n: Int) -> [UInt8] {
        var hashes = [UInt64](repeating: 0xcbf2_9ce4_8422_2325, count: 256)
        for q in 0..<n {
            for b in 0..<256 { hashes[b] = (hashes[b] ^ UInt64(UInt32(bitPattern: table[q * 256 + b]))) &* 0x100_0000_01b3 }
        }
        var reps: [UInt8] = []
        for b in 0..<256 {
            let same = reps.contains { r in
                hashes[Int(r)] == hashes[b] && (0..<n).allSatisfy { table[$0 * 256 + Int(r)] == table[$0 * 256 + b] }
            }
            if !same { reps.append(UInt8(b)) }
        }
        return reps
    }
}
