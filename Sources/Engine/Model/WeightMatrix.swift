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

    /// The start of row `r`.
    @inlinable public func row(_ r: Int) -> UnsafeRawPointer { data + r * rowBytes }
}
