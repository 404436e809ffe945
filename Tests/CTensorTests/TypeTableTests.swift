import CTensor
import Testing

@Suite struct TypeTableTests {
    @Test func blockGeometryMatchesGGML() {
        #expect(loom_type_block_bytes(Int32(LOOM_TYPE_Q4_0.rawValue)) == 18)
        #expect(loom_type_block_bytes(Int32(LOOM_TYPE_Q4_K.rawValue)) == 144)
        #expect(loom_type_block_bytes(Int32(LOOM_TYPE_Q6_K.rawValue)) == 210)
        #expect(loom_type_block_bytes(Int32(LOOM_TYPE_Q2_K.rawValue)) == 84)
        #expect(loom_type_block_bytes(Int32(LOOM_TYPE_Q3_K.rawValue)) == 110)
        #expect(loom_type_block_bytes(Int32(LOOM_TYPE_Q5_K.rawValue)) == 176)
        #expect(!loom_type_supported(4))
    }
}
