import CTensor

/// A weight matrix: `rows` rows of `columns` elements, each row `rowBytes` bytes of its element
/// type (ggml's ne0 is the column axis). Either a view of the file's rows in the read-only
/// mapping, or the same rows interleaved by eight (`type` one of CTensor's interleaved layouts,
/// same size, group g of eight rows at byte g * 8 * rowBytes), which `Weights` owns.
///
/// `@unchecked Sendable`: the pointer targets immutable memory kept alive by the `Weights` that
/// made the view.
public struct WeightMatrix: @unchecked Sendable {
    /// First byte of row 0.
    public let data: UnsafeRawPointer
    /// ggml type id (`loom_type`).
    public let type: Int32
    /// Output features (ggml ne1).
    public let rows: Int
    /// Input features (ggml ne0).
    public let columns: Int
    /// Bytes from one row to the next.
    public let rowBytes: Int

    init(file: GGUFFile, tensor: GGUFTensorInfo) {
        data = file.data(for: tensor)
        type = Int32(bitPattern: tensor.typeID)
        columns = tensor.shape[0]
        rows = tensor.rowCount
        rowBytes = loom_row_bytes(type, Int64(columns))
    }

    private init(data: UnsafeRawPointer, type: Int32, rows: Int, columns: Int, rowBytes: Int) {
        self.data = data
        self.type = type
        self.rows = rows
        self.columns = columns
        self.rowBytes = rowBytes
    }

    /// Rows `range` as a matrix of their own: a fused tensor (phi3's `attn_qkv`, gate+up
    /// `ffn_up`) bound as its parts. Rows are whole blocks, so any row range is valid; an
    /// interleaved matrix splits at multiples of eight only.
    func rows(_ range: Range<Int>) -> WeightMatrix {
        precondition(range.lowerBound >= 0 && range.upperBound <= rows)
        precondition(!isInterleaved || (range.lowerBound % 8 == 0 && range.count % 8 == 0))
        return WeightMatrix(data: data + range.lowerBound * rowBytes, type: type, rows: range.count, columns: columns,
                            rowBytes: rowBytes)
    }

    /// True when the rows are interleaved by eight.
    public var isInterleaved: Bool { loom_type_is_interleaved(type) }

    /// The rows interleaved by eight (loom_repack_x8) in memory taken from `memory`, or nil
    /// when the type has no interleaved layout or the shape does not allow it: rows must be a
    /// multiple of 8, and so must every row index in `splits` (the boundaries at which a fused
    /// tensor is cut into its parts).
    func interleaved(into memory: InterleavedMemory, splits: [Int] = []) -> WeightMatrix? {
        let packed = loom_repack_x8_type(type)
        guard packed >= 0, rows % 8 == 0, splits.allSatisfy({ $0 % 8 == 0 }),
              let storage = memory.take(rows * rowBytes),
              loom_repack_x8(type, data, rowBytes, Int64(rows), Int64(columns), storage) == packed
        else { return nil }
        return WeightMatrix(data: UnsafeRawPointer(storage), type: packed, rows: rows, columns: columns,
                            rowBytes: rowBytes)
    }
}
