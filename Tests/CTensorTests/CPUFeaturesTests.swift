import CTensor
import Foundation
import LoomSupport
import Testing

@Suite struct CPUFeaturesTests {
    @Test func activeTierNeverExceedsWhatTheMachineSupports() {
        let best = loom_isa_best()
        #expect(loom_isa_active().rawValue <= best.rawValue)
        let f = loom_cpu_features_get()!.pointee
        if best.rawValue >= LOOM_ISA_AVX2.rawValue { #expect(f.avx2 && f.fma && f.f16c) }
        if best == LOOM_ISA_AVX512 { #expect(f.avx512f && f.avx512bw && f.avx512vl) }
        // AMX is only usable when the kernel granted it; never without CPUID reporting it.
        if f.amx { #expect(f.amx_reported) }
    }

    @Test func forcingClampsToTheBestTier() {
        OpsSupport.overridingTier {
            #expect(loom_isa_set_thread(Int32(LOOM_ISA_SCALAR.rawValue)) == -1)
            #expect(loom_isa_active() == LOOM_ISA_SCALAR)
            _ = loom_isa_set_thread(Int32(LOOM_ISA_AVX512.rawValue) + 5)
            #expect(loom_isa_active() == loom_isa_best())
        }
        #expect(loom_isa_thread() == -1)
        // The process-wide setter, without changing the tier other tests' threads run at.
        let active = loom_isa_active()
        #expect(loom_isa_set(active) == active)
    }

    /// A thread's tier is its own: another thread keeps the process-wide one, and a pool runs
    /// its shares at the tier of the thread that started the run.
    @Test func aThreadsTierIsItsOwnAndItsPoolRunsShareIt() throws {
        let global = loom_isa_active()
        OpsSupport.overridingTier {
            _ = loom_isa_set_thread(Int32(LOOM_ISA_SCALAR.rawValue))
            let other = Locked(loom_isa(rawValue: 99))
            let done = DispatchSemaphore(value: 0)
            Thread {
                other.withLock { $0 = loom_isa_active() }
                done.signal()
            }.start()
            done.wait()
            #expect(other.withLock { $0 } == global)
            // Share 0 waits for share 1, so the two run on different threads: one is a worker.
            let pool = loom_pool_create(2)!
            defer { loom_pool_destroy(pool) }
            let probe = PoolProbe()
            loom_pool_run(pool, { ctx, ith, _ in
                let probe = Unmanaged<PoolProbe>.fromOpaque(ctx!).takeUnretainedValue()
                if ith == 1 { probe.started.signal() } else if probe.started.wait(timeout: .now() + 60) == .timedOut { return }
                probe.tiers[Int(ith)] = Int32(loom_isa_active().rawValue)
            }, Unmanaged.passUnretained(probe).toOpaque())
            #expect(probe.tiers[0] == Int32(LOOM_ISA_SCALAR.rawValue) && probe.tiers[1] == Int32(LOOM_ISA_SCALAR.rawValue))
        }
        #expect(loom_isa_active() == global)
    }
}

/// What each share of a two-thread pool run saw, and the handshake that puts them on two threads.
private final class PoolProbe {
    let tiers = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
    let started = DispatchSemaphore(value: 0)
    init() { tiers.initialize(repeating: -1, count: 2) }
    deinit { tiers.deallocate() }
}
