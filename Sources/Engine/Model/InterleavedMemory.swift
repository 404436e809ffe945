#if canImport(Glibc)
import Glibc
#endif

/// Memory for a model's repacked weight matrices: one anonymous mapping, handed out in order
/// with 64-byte alignment, so a model's interleaved matrices lie together and go with one
/// `munmap`. Pages never written (reserved for tensors the model does not bind) are never
/// resident. (Transparent huge pages for it were measured on an AVX-512 EPYC: decode no faster,
/// loading no faster, so the mapping asks for none.)
///
/// `@unchecked Sendable`: `take` runs only while `Weights.init` builds the matrices; afterwards
/// the memory is only read.
final class InterleavedMemory: @unchecked Sendable {
    /// First byte (page aligned).
    let base: UnsafeMutableRawPointer
    private let capacity: Int
    private var used = 0

    /// A reservation of `bytes` bytes (plus 64-byte alignment between parts), or nil when the
    /// mapping fails.
    init?(bytes: Int) {
        let length = max(bytes, 1)
        guard let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED
        else { return nil }
        base = p
        capacity = length
    }

    deinit { munmap(base, capacity) }

    /// The next `bytes` bytes (64-byte aligned), or nil when the reservation is used up.
    func take(_ bytes: Int) -> UnsafeMutableRawPointer? {
        let start = (used + 63) / 64 * 64
        guard start + bytes <= capacity else { return nil }
        used = start + bytes
        return base + start
    }
}
