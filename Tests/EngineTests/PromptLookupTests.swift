import Engine
import Testing

/// Prompt lookup proposes what followed the latest earlier occurrence of the sequence's last
/// tokens, adapts its run length to acceptance and pauses after repeated rejections.
struct PromptLookupTests {
    @Test func proposesTheContinuationOfTheLatestLongestMatch() {
        // "7 8 9" occurs twice; the later occurrence is followed by 40 41 42, the earlier by 10 11.
        var lookup = PromptLookup(prompt: [1, 7, 8, 9, 10, 11, 2, 7, 8, 9, 40, 41, 42, 3, 7, 8], maxRun: 8)
        lookup.append(9)
        var proposal: [Int32] = []
        lookup.propose(limit: 3, into: &proposal)
        #expect(proposal == [40, 41, 42])
        lookup.propose(limit: 2, into: &proposal)
        #expect(proposal == [40, 41])
    }

    @Test func aLongerMatchWinsOverAMoreRecentShorterOne() {
        // The last four tokens 4 5 6 7 occur once, early; "5 6 7" alone occurs later.
        var lookup = PromptLookup(prompt: [4, 5, 6, 7, 100, 101, 0, 5, 6, 7, 200, 0, 4, 5, 6], maxRun: 8)
        lookup.append(7)
        var proposal: [Int32] = []
        lookup.propose(limit: 2, into: &proposal)
        #expect(proposal == [100, 101])
    }

    @Test func nothingIsProposedWithoutARecurringSuffix() {
        var lookup = PromptLookup(prompt: [1, 2, 3, 4, 5], maxRun: 8)
        lookup.append(6)
        var proposal: [Int32] = [9]
        lookup.propose(limit: 4, into: &proposal)
        #expect(proposal.isEmpty)
        var off = PromptLookup(prompt: [1, 2, 1, 2], maxRun: 0)
        off.append(1)
        off.propose(limit: 4, into: &proposal)
        #expect(proposal.isEmpty)
    }

    @Test func runLengthGrowsWithAcceptanceAndShrinksToWhatWasAccepted() {
        let prompt: [Int32] = Array(1...40) + [1, 2, 3]
        var lookup = PromptLookup(prompt: prompt, maxRun: 8)
        var proposal: [Int32] = []
        lookup.propose(limit: 100, into: &proposal)
        #expect(proposal.count == 4)
        lookup.record(proposed: 4, accepted: 4)
        lookup.propose(limit: 100, into: &proposal)
        #expect(proposal.count == 8)
        lookup.record(proposed: 8, accepted: 8)
        lookup.propose(limit: 100, into: &proposal)
        #expect(proposal.count == 8, "capped at maxRun")
        lookup.record(proposed: 8, accepted: 2)
        lookup.propose(limit: 100, into: &proposal)
        #expect(proposal.count == 3)
        #expect(lookup.proposedTokens == 20 && lookup.acceptedTokens == 14)
    }

    @Test func repeatedRejectionsPauseProposing() {
        var lookup = PromptLookup(prompt: [1, 2, 3, 4, 1, 2, 3], maxRun: 8)
        var proposal: [Int32] = []
        for _ in 0..<2 {
            lookup.propose(limit: 8, into: &proposal)
            #expect(!proposal.isEmpty)
            lookup.record(proposed: proposal.count, accepted: 0)
        }
        lookup.propose(limit: 8, into: &proposal)
        #expect(proposal.isEmpty, "paused after two misses")
        // The pause lasts 8 appended tokens; the suffix 1 2 3 recurs again after them.
        for t: Int32 in [9, 9, 9, 9, 9, 1, 2, 3] { lookup.append(t) }
        lookup.propose(limit: 8, into: &proposal)
        #expect(!proposal.isEmpty)
    }
}
