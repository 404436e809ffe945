import LoomJSON
import Testing

/// `UTF8LeadByte` against the standard library's UTF-8 validation: for every lead byte and every
/// first continuation, a sequence of the table's length is well-formed exactly when the table
/// says the continuation is allowed.
@Suite struct UTF8LeadByteTests {
    @Test func agreesWithTheStandardLibraryOnEveryLeadAndFirstContinuation() {
        for lead in UInt8(0)...UInt8(255) {
            guard let sequence = UTF8LeadByte(lead) else {
                // No well-formed sequence starts here, whatever follows.
                for count in 0...3 {
                    let bytes = [lead] + [UInt8](repeating: 0x80, count: count)
                    #expect(String(validating: bytes, as: UTF8.self) == nil, "lead \(lead) with \(count) continuations")
                }
                continue
            }
            if sequence.continuationCount == 0 {
                #expect(String(validating: [lead], as: UTF8.self) != nil, "ASCII \(lead)")
                continue
            }
            for first in UInt8(0x80)...UInt8(0xBF) {
                let bytes = [lead, first] + [UInt8](repeating: 0x80, count: sequence.continuationCount - 1)
                let valid = String(validating: bytes, as: UTF8.self) != nil
                #expect(valid == sequence.firstContinuation.contains(first), "lead \(lead), first continuation \(first)")
            }
        }
    }
}
