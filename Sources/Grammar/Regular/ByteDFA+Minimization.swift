extension ByteDFA {
    /// The minimal DFA of the same language (Hopcroft's partition refinement).
    ///
    /// Subset construction leaves many equivalent states behind: a format regex such as a URI
    /// determinises into thousands of states, most of them copies that differ only in which NFA
    /// paths are still alive. Every later step pays per state — a mask is cached per pattern state,
    /// a cold state walks the whole token trie, horizon classes refine over all states — so the
    /// states are merged once, where the DFA is built. Because the result is renumbered breadth
    /// first by byte, two patterns with one language also become one interned DFA.
    ///
    /// - Parameter byteGroups: one byte of each group of bytes that every state treats alike, when
    ///   the caller knows them (subset construction works over such groups); else they are found.
    func minimized(byteGroups: [UInt8]? = nil) -> ByteDFA {
        let n = stateCount
        guard n > 1 else { return self }
        let total = n + 1  // state n is the dead sink the trimmed table leaves implicit
        // Bytes whose columns agree in every state split nothing apart from each other.
        let reps = byteGroups ?? trans.withUnsafeBufferPointer { ByteDFA.columnRepresentatives($0.baseAddress!, stateCount: n) }
        let k = reps.count
        // Raw buffers throughout: this runs over every state × byte group of every pattern a schema
        // compiles (thousands of states for counters and formats).
        let revStart = UnsafeMutablePointer<Int32>.allocate(capacity: total * k + 1)
        let revFrom = UnsafeMutablePointer<Int32>.allocate(capacity: total * k)
        let elements = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        let position = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        let blockOf = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        // Per block (at most one per state): its range [first, past) in `elements`, how many of
        // its states the current splitter marked, and whether it waits in `work`.
        let first = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        let past = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        let marked = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        let inWork = UnsafeMutablePointer<Bool>.allocate(capacity: total)
        let work = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        let touched = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        let splitter = UnsafeMutablePointer<Int32>.allocate(capacity: total)
        defer {
            for p in [revStart, revFrom, elements, position, blockOf, first, past, marked, work, touched, splitter] { p.deallocate() }
            inWork.deallocate()
        }
        // Predecessors per (target, byte group) in one compressed array.
        revStart.initialize(repeating: 0, count: total * k + 1)
        trans.withUnsafeBufferPointer { t in
            for q in 0..<total {
                for c in 0..<k {
                    let x = q < n ? Int(t[q * 256 + Int(reps[c])]) : -1
                    revStart[(x < 0 ? n : x) * k + c + 1] += 1
                }
            }
            for i in 0..<(total * k) { revStart[i + 1] += revStart[i] }
            let fill = UnsafeMutablePointer<Int32>.allocate(capacity: total * k)
            defer { fill.deallocate() }
            fill.update(from: revStart, count: total * k)
            for q in 0..<total {
                for c in 0..<k {
                    let x = q < n ? Int(t[q * 256 + Int(reps[c])]) : -1
                    let slot = (x < 0 ? n : x) * k + c
                    revFrom[Int(fill[slot])] = Int32(q)
                    fill[slot] += 1
                }
            }
        }

        // The start partition: accepting states, the other live ones, the sink.
        var blocks = 0, waiting = 0
        do {
            var at = 0
            for group in 0..<3 {
                let start = at
                for q in 0..<total {
                    let g = q == n ? 2 : (accepting[q] ? 0 : 1)
                    guard g == group else { continue }
                    elements[at] = Int32(q)
                    position[q] = Int32(at)
                    blockOf[q] = Int32(blocks)
                    at += 1
                }
                if at > start {
                    first[blocks] = Int32(start)
                    past[blocks] = Int32(at)
                    marked[blocks] = 0
                    inWork[blocks] = true
                    work[waiting] = Int32(blocks)
                    waiting += 1
                    blocks += 1
                }
            }
        }
        while waiting > 0 {
            waiting -= 1
            let b = Int(work[waiting])
            inWork[b] = false
            let size = Int(past[b] - first[b])
            splitter.update(from: elements + Int(first[b]), count: size)
            for c in 0..<k {
                // Mark every state whose group-c byte enters the splitter: move it to the front of its block.
                var touchedCount = 0
                for j in 0..<size {
                    let slot = Int(splitter[j]) * k + c
                    for i in Int(revStart[slot])..<Int(revStart[slot + 1]) {
                        let p = Int(revFrom[i])
                        let x = Int(blockOf[p])
                        let m = Int(first[x] + marked[x])
                        let pos = Int(position[p])
                        guard pos >= m else { continue }  // already marked
                        if marked[x] == 0 {
                            touched[touchedCount] = Int32(x)
                            touchedCount += 1
                        }
                        let other = elements[m]
                        elements[m] = Int32(p)
                        position[p] = Int32(m)
                        elements[pos] = other
                        position[Int(other)] = Int32(pos)
                        marked[x] += 1
                    }
                }
                // Split each touched block into its marked front and the rest.
                for t in 0..<touchedCount {
                    let x = Int(touched[t])
                    let m = Int(marked[x])
                    marked[x] = 0
                    let whole = Int(past[x] - first[x])
                    guard m < whole else { continue }
                    let y = blocks
                    blocks += 1
                    let splitAt = first[x] + Int32(m)
                    first[y] = splitAt
                    past[y] = past[x]
                    marked[y] = 0
                    past[x] = splitAt
                    for i in Int(splitAt)..<Int(past[y]) { blockOf[Int(elements[i])] = Int32(y) }
                    if inWork[x] {
                        inWork[y] = true
                        work[waiting] = Int32(y)
                        waiting += 1
                    } else {
                        // Hopcroft's halving: the smaller half suffices as a splitter.
                        let smaller = m <= whole - m ? x : y
                        inWork[y] = false
                        inWork[smaller] = true
                        work[waiting] = Int32(smaller)
                        waiting += 1
                    }
                }
            }
        }
        if blocks == total { return self }  // already minimal: every state its own block
        // One state per block; the raw init drops the sink's block and renumbers breadth first.
        let sinkBlock = Int(blockOf[n])
        var raw = [Int32](repeating: -1, count: blocks * 256)
        var acc = [Bool](repeating: false, count: blocks)
        // State 0's block must come first: swap its number with block 0's.
        let startBlock = Int(blockOf[0])
        func id(_ b: Int) -> Int { b == startBlock ? 0 : (b == 0 ? startBlock : b) }
        trans.withUnsafeBufferPointer { t in
            raw.withUnsafeMutableBufferPointer { r in
                for x in 0..<blocks where x != sinkBlock {
                    let q = Int(elements[Int(first[x])])
                    let row = id(x) * 256
                    acc[id(x)] = accepting[q]
                    for byte in 0..<256 {
                        let to = Int(t[q * 256 + byte])
                        if to >= 0 { r[row + byte] = Int32(id(Int(blockOf[to]))) }
                    }
                }
            }
        }
        return ByteDFA(rawTrans: raw, rawAccepting: acc)
    }

    /// One byte per group of bytes whose transition columns agree in every state of `table`
    /// (`state * 256 + byte`): partition refinement need only look at one byte of each group.
    static func columnRepresentatives(_ table: UnsafePointer<Int32>, stateCount n: Int) -> [UInt8] {
        columnGroups(table, stateCount: n).representatives
    }

    /// Each byte's group of identical transition columns in `table`, and one byte per group.
    /// Columns are hashed in one row-major pass and compared in full only when hashes meet.
    static func columnGroups(_ table: UnsafePointer<Int32>, stateCount n: Int) -> (groupOf: [Int], representatives: [UInt8]) {
        var hashes = [UInt64](repeating: 0xcbf2_9ce4_8422_2325, count: 256)
        for q in 0..<n {
            for b in 0..<256 { hashes[b] = (hashes[b] ^ UInt64(UInt32(bitPattern: table[q * 256 + b]))) &* 0x100_0000_01b3 }
        }
        var groupOf = [Int](repeating: 0, count: 256)
        var reps: [UInt8] = []
        for b in 0..<256 {
            let same = reps.firstIndex { r in
                hashes[Int(r)] == hashes[b] && (0..<n).allSatisfy { table[$0 * 256 + Int(r)] == table[$0 * 256 + b] }
            }
            if let same {
                groupOf[b] = same
            } else {
                groupOf[b] = reps.count
                reps.append(UInt8(b))
            }
        }
        return (groupOf, reps)
    }
}
