import CTensor
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
            #expect(loom_isa_set(LOOM_ISA_SCALAR) == LOOM_ISA_SCALAR)
            #expect(loom_isa_active() == LOOM_ISA_SCALAR)
            #expect(loom_isa_set(LOOM_ISA_AVX512).rawValue <= loom_isa_best().rawValue)
        }
    }
}
