import CTensor

/// The rows of one scheduler step: every sequence's tokens for this forward pass, where their
/// keys and values go in the KV pool, and which rows need logits.
///
/// Rows are grouped by sequence into segments (one `loom_attention_segment` each), in three runs:
/// fused segments whose attention takes one query at a time (decode tokens, generated runs, the
/// short tail of a prompt); fused prompt chunks whose attention takes tiles of queries; long
/// prompt chunks, each multiplied on its own through the prompt path (tiled attention too). The
/// fused ones share the step's integer products (`fusedRowCount` rows). Which kind a segment is
/// depends only on that segment, so a sequence's arithmetic never depends on what else shares
/// the step.
///
/// Buffers are allocated once for the scheduler's largest step and reused: building a step
/// allocates nothing.
final class StepBatch {
    /// How a segment's rows are evaluated; segments are added in this order.
    enum SegmentKind: Int, Comparable {
        /// Fused products, attention one query at a time.
        case untiled
        /// Fused products, attention in tiles of queries.
        case tiled
        /// Products of its own, attention in tiles of queries.
        case promptPath

        static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// Most rows a step may hold.
    let rowCapacity: Int
    /// Most segments (sequences) a step may hold.
    let segmentCapacity: Int

    /// Token of each row `[rows]`.
    let tokens: UnsafeMutablePointer<Int32>
    /// Logical position of each row in its sequence `[rows]`.
    let positions: UnsafeMutablePointer<Int32>
    /// Pool row that receives each row's keys and values `[rows]`.
    let kvRows: UnsafeMutablePointer<Int32>
    /// Per segment: rows, first position and block table.
    let segments: UnsafeMutablePointer<loom_attention_segment>
    /// Where local (sliding-window) layers keep each row's keys and values, when they have a
    /// pool of their own (`localSegments` then holds their block tables) `[rows]`.
    let localKVRows: UnsafeMutablePointer<Int32>
    /// `segments` with each sequence's local-layer block table.
    let localSegments: UnsafeMutablePointer<loom_attention_segment>
    /// Rows whose logits the step computes, in order `[logitCount]`.
    let logitRows: UnsafeMutablePointer<Int32>

    /// Rows filled.
    private(set) var rowCount = 0
    /// Segments filled.
    private(set) var segmentCount = 0
    /// Rows of the fused segments (rows `0..<fusedRowCount`).
    private(set) var fusedRowCount = 0
    /// Fused segments (`0..<fusedSegmentCount`); the prompt-path ones follow.
    private(set) var fusedSegmentCount = 0
    /// Segments whose attention takes one query at a time, which come first
    /// (`0..<untiledSegmentCount`): from there on, attention takes a chunk's queries in tiles.
    private(set) var untiledSegmentCount = 0
    /// Logit rows requested.
    private(set) var logitCount = 0

    init(rows: Int, segments: Int) {
        rowCapacity = rows
        segmentCapacity = segments
        tokens = .allocate(capacity: rows)
        positions = .allocate(capacity: rows)
        kvRows = .allocate(capacity: rows)
        localKVRows = .allocate(capacity: rows)
        logitRows = .allocate(capacity: rows)
        self.segments = .allocate(capacity: segments)
        localSegments = .allocate(capacity: segments)
    }

    deinit {
        tokens.deallocate()
        positions.deallocate()
        kvRows.deallocate()
        localKVRows.deallocate()
        localSegments.deallocate()
        logitRows.deallocate()
        segments.deallocate()
    }

    /// Empties the step.
    func reset() {
        rowCount = 0
        segmentCount = 0
        fusedRowCount = 0
        fusedSegmentCount = 0
        untiledSegmentCount = 0
        logitCount = 0
    }

    /// Rows still free.
    var freeRows: Int { rowCapacity - rowCount }

    /// Appends a segment of `count` rows at positions `start...` of a sequence whose block table
    /// is `table` (and `localTable` for local layers with a pool of their own); returns its
    /// index. Segments come in `SegmentKind` order.
    func addSegment(start: Int, count: Int, table: UnsafePointer<Int32>, localTable: UnsafePointer<Int32>? = nil,
                    kind: SegmentKind) -> Int {
        precondition(segmentCount < segmentCapacity && rowCount + count <= rowCapacity)
        precondition(kind == .promptPath || segmentCount == fusedSegmentCount, "fused segments come first")
        precondition(kind != .untiled || segmentCount == untiledSegmentCount, "untiled segments come first")
        let index = segmentCount
        segments[index] = loom_attention_segment(row: Int64(rowCount), n_tokens: Int64(count), pos0: Int64(start),
                                                 block_table: table)
        localSegments[index] = loom_attention_segment(row: Int64(rowCount), n_tokens: Int64(count), pos0: Int64(start),
                                                      block_table: localTable ?? table)
        rowCount += count
        segmentCount += 1
        if kind != .promptPath { (fusedRowCount, fusedSegmentCount) = (rowCount, segmentCount) }
        if kind == .untiled { untiledSegmentCount = segmentCount }
        return index
    }

    /// Asks for the logits of the last `lastRows` rows of segment `index`, in row order.
    func requestLogits(segment index: Int, lastRows: Int) {
        let s = segments[index]
        let end = Int32(s.row + s.n_tokens)
        for r in end - Int32(lastRows)..<end {
            logitRows[logitCount] = r
            logitCount += 1
        }
    }
}
