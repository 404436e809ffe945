import CTensor

/// The worker threads one transformer runs its kernels on (CTensor's `loom_pool`).
///
/// Not reentrant: one forward pass at a time uses a pool, which is why each `Transformer` owns
/// its own. `@unchecked Sendable`: the pool may be handed to another thread between passes; the
/// owner serialises use.
public final class ThreadPool: @unchecked Sendable {
    /// Threads in total, the calling thread included.
    public let threadCount: Int
    /// The C pool.
    let pool: OpaquePointer

    /// Creates a pool of `threads` threads (the caller counts as one).
    public init(threads: Int) throws(EngineError) {
        guard threads >= 1, threads <= 1024 else { throw .invalidConfiguration("thread count \(threads) must be 1...1024") }
        guard let p = loom_pool_create(Int32(threads)) else { throw .threadPoolUnavailable }
        pool = p
        threadCount = Int(loom_pool_size(p))
    }

    /// Runs `body` with this pool's runs counted as `kind` by a recording profile
    /// (`loom_profile.h`), whatever operations dispatch them.
    @inline(__always)
    func labelled(_ kind: loom_work, _ body: () -> Void) {
        loom_pool_label(pool, Int32(kind.rawValue))
        body()
        loom_pool_label(pool, -1)
    }

    deinit { loom_pool_destroy(pool) }
}
