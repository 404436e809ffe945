import CTensor
import Foundation
import Testing

/// The worker pool runs every thread exactly once per dispatch; tests count work, never time.
@Suite(.timeLimit(.minutes(2))) struct PoolTests {
    /// Per-thread run counters plus a record of the `nth` every thread saw.
    final class Counters {
        let slots: UnsafeMutablePointer<Int>
        let seenN: UnsafeMutablePointer<Int>
        let n: Int
        init(_ n: Int) {
            self.n = n
            slots = .allocate(capacity: n)
            slots.initialize(repeating: 0, count: n)
            seenN = .allocate(capacity: n)
            seenN.initialize(repeating: 0, count: n)
        }
        deinit {
            slots.deallocate()
            seenN.deallocate()
        }
    }

    static let count: loom_task_fn = { ctx, ith, nth in
        let c = Unmanaged<Counters>.fromOpaque(ctx!).takeUnretainedValue()
        c.slots[Int(ith)] += 1  // each thread owns its slot: no sharing, no atomics needed
        c.seenN[Int(ith)] = Int(nth)
    }

    @Test(arguments: [1, 2, 3, 4, 8])
    func everyThreadRunsExactlyOncePerRun(threads: Int) {
        let pool = loom_pool_create(Int32(threads))!
        defer { loom_pool_destroy(pool) }
        #expect(loom_pool_size(pool) == Int32(threads))
        let counters = Counters(threads)
        let ctx = Unmanaged.passUnretained(counters).toOpaque()
        let runs = 3000
        for r in 1...runs {
            loom_pool_run(pool, Self.count, ctx)
            // After run r returns, every thread has finished exactly r runs.
            if r % 500 == 0 || r == 1 {
                for i in 0..<threads { #expect(counters.slots[i] == r, "thread \(i) after run \(r)") }
            }
        }
        for i in 0..<threads {
            #expect(counters.slots[i] == runs)
            #expect(counters.seenN[i] == threads)
        }
    }

    @Test func runsAfterWorkersFellAsleepStillReachEveryThread() async throws {
        let pool = loom_pool_create(3)!
        defer { loom_pool_destroy(pool) }
        let counters = Counters(3)
        let ctx = Unmanaged.passUnretained(counters).toOpaque()
        for r in 1...5 {
            // Long enough for the spin phase to end and the workers to sleep on the futex.
            try await Task.sleep(for: .milliseconds(20))
            loom_pool_run(pool, Self.count, ctx)
            for i in 0..<3 { #expect(counters.slots[i] == r) }
        }
    }

    @Test func defaultSizeIsThePhysicalCoreCount() {
        let cores = loom_physical_cores()
        #expect(cores >= 1)
        #expect(Int(cores) <= ProcessInfo.processInfo.activeProcessorCount)
        let pool = loom_pool_create(0)!
        defer { loom_pool_destroy(pool) }
        #expect(loom_pool_size(pool) == cores)
    }

    @Test func poolsCanBeCreatedAndDestroyedRepeatedly() {
        for i in 0..<50 {
            let pool = loom_pool_create(Int32(1 + i % 4))!
            let counters = Counters(1 + i % 4)
            loom_pool_run(pool, Self.count, Unmanaged.passUnretained(counters).toOpaque())
            loom_pool_destroy(pool)
            #expect((0..<(1 + i % 4)).allSatisfy { counters.slots[$0] == 1 })
        }
    }
}
