import CTensor

/// A weight matrix as stored in the model file: `rows` rows of `columns` elements, each row
/// `rowBytes` bytes of the file's element type (ggml's ne0 is the column axis). Points into the
/// read-only mapping; nothing is copied.
///
/// `@unchecked Sendable`: the pointer targets immutable mapped memory kept alive by the
/// `Weights` that made the view.
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
    /// `ffn_up`) bound as its parts. Rows are whole blocks, so any row range is valid.
    func rows(_ range: Range<Int>) -> WeightMatrix {
        precondition(range.lowerBound >= 0 && range.upperBound <= rows)
        return WeightMatrix(data: row(range.lowerBound), type: type, rows: range.count, columns: columns, rowBytes: rowBytes)
    }

    /// The start of row `r`.
    @inlinable public func row(_ r: Int) -> UnsafeRawPointer { data + r * rowBytes }
}
