#if canImport(Glibc)
import Glibc
#endif

extension GGUFFile {
    /// Drops the resident pages wholly inside `tensor`'s data from this process's memory, for a
    /// tensor whose contents now live elsewhere (an interleaved copy). The mapping stays valid:
    /// a later read faults the pages in from the file again. Images held in anonymous memory
    /// keep their pages, since dropping those would zero them.
    func releaseResidentPages(of tensor: GGUFTensorInfo) {
        guard isFileBacked else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = Int(bitPattern: data(for: tensor)), end = start + tensor.byteCount
        let first = (start + page - 1) / page * page, last = end / page * page
        guard last > first, let p = UnsafeMutableRawPointer(bitPattern: first) else { return }
        madvise(p, last - first, MADV_DONTNEED)
    }
}
