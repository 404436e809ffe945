import CTensor
import Foundation
import LoomSupport
import Testing
import ThreadFreezer

/// The worker pool runs every share exactly once per dispatch; tests count work, never time.
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

    /// A pool and a task context handed to the thread that runs them (the test waits for it).
    struct UnsafeSendable: @unchecked Sendable {
        let pool: OpaquePointer
        let ctx: UnsafeMutableRawPointer
    }

    /// The threads that ran shares, in order.
    final class ThreadLog: Sendable {
        let threads = Locked<[pthread_t]>([])
    }

    /// Records the running thread, after a few microseconds of work so that spinning workers
    /// get to claim shares.
    static let recordThread: loom_task_fn = { ctx, _, _ in
        let log = Unmanaged<ThreadLog>.fromOpaque(ctx!).takeUnretainedValue()
        var x = 0.0
        for i in 0..<20_000 { x += Double(i) }
        log.threads.withLock { $0.append(loom_test_current_thread()) }
        if x < 0 { print(x) }
    }

    /// A worker thread of `pool` (not the caller), seen running a share.
    static func aWorker(of pool: OpaquePointer) throws -> pthread_t {
        let log = ThreadLog()
        let caller = loom_test_current_thread()
        var worker: pthread_t?
        for _ in 0..<1000 where worker == nil {
            loom_pool_run(pool, recordThread, Unmanaged.passUnretained(log).toOpaque())
            worker = log.threads.withLock { $0.first { pthread_equal($0, caller) == 0 } }
        }
        return try #require(worker, "no worker ever ran a share")
    }

    /// A machine's other processes can keep a woken worker off the CPU for milliseconds; every
    /// operation of a forward pass waiting for it would collapse the pool. A worker stopped in a
    /// signal handler stands in for it: runs still complete (the threads that are running take
    /// its share), every share still runs exactly once, and the thawed worker joins again.
    @Test func aWorkerThatIsNotRunningDoesNotHoldUpARun() throws {
        let threads = 3
        #expect(loom_test_allow_freezing_children() == 0)
        let pool = loom_pool_create(Int32(threads))!
        loom_test_restore_signal_mask()
        defer { loom_pool_destroy(pool) }
        let frozen = try Self.aWorker(of: pool)
        #expect(loom_test_freeze_thread(frozen) == 0)
        let counters = Counters(threads)
        let ctx = Unmanaged.passUnretained(counters).toOpaque()
        // The runs go on their own thread, so that a pool that does wait for the frozen worker
        // fails this test (after a liveness bound far above 50 tiny runs) instead of hanging it.
        let done = Locked(false)
        let runs = UnsafeSendable(pool: pool, ctx: ctx)
        #expect(DedicatedThread.start {
            for _ in 1...50 { loom_pool_run(runs.pool, Self.count, runs.ctx) }
            done.withLockSignalling { $0 = true }
        })
        let finished = done.wait(until: { $0 }, timeoutNanoseconds: 30_000_000_000) { value, _ in value }
        #expect(finished, "runs did not complete while a worker was frozen")
        loom_test_thaw_thread()
        done.wait(until: { $0 }) { _, _ in }
        for i in 0..<threads { #expect(counters.slots[i] == 50, "share \(i)") }
        // Thawed, it goes back to waiting for runs; the next ones still run every share once.
        for _ in 0..<50 { loom_pool_run(pool, Self.count, ctx) }
        for i in 0..<threads { #expect(counters.slots[i] == 100) }
    }
}
