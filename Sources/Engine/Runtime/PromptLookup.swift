/// Draft-free speculation by prompt lookup: the last few tokens of a sequence are looked up in
/// its earlier tokens (the prompt and the output so far), and what followed their most recent
/// occurrence is proposed as the continuation. Outputs grounded in the input (extraction,
/// rewriting, quoting, tool arguments) copy long runs of the prompt, which a verifier accepts
/// several tokens per forward pass.
///
/// The proposer is a deterministic function of the sequence's own tokens and of how many of
/// its earlier proposals were accepted, so seeded runs reproduce. It adapts: the run length
/// grows while proposals are accepted whole and shrinks to what was accepted otherwise, and
/// after two rejections in a row it stops proposing for a while (longer each time), so text
/// that does not copy its input pays little for the attempts.
public struct PromptLookup: Sendable {
    /// The sequence so far: prompt, then accepted output.
    public private(set) var history: [Int32]
    /// The most tokens one proposal holds.
    public let maxRun: Int
    /// Longest and shortest suffix looked up (longer matches first). Two-token suffixes recur
    /// all over ordinary text (", the", "of a") and their continuations rarely hold, so a
    /// match needs three.
    let longestMatch = 4, shortestMatch = 3
    /// Tokens the next proposal may hold (adapted between 1 and `maxRun`).
    private(set) var run: Int
    /// Tokens to append before proposing again, after rejections.
    private var pause = 0
    /// The next pause's length (doubles up to a bound while proposals keep failing).
    private var nextPause = 8
    /// Proposals in a row that had no token accepted.
    private var misses = 0
    /// Tokens proposed and accepted over the sequence, and the proposals they came in.
    public private(set) var proposedTokens = 0, acceptedTokens = 0, verifiedRuns = 0

    /// A proposer for a sequence that starts with `prompt`; proposals hold at most `maxRun`
    /// tokens.
    public init(prompt: [Int32], maxRun: Int) {
        history = prompt
        self.maxRun = max(maxRun, 0)
        run = min(4, self.maxRun)
    }

    /// Records a token of the output (accepted or sampled).
    public mutating func append(_ token: Int32) {
        history.append(token)
        if pause > 0 { pause -= 1 }
    }

    /// Records several output tokens.
    public mutating func append(contentsOf tokens: [Int32]) {
        for t in tokens { append(t) }
    }

    /// Writes the proposed continuation of `history` into `proposal` (emptied first): at most
    /// `min(limit, run)` tokens, none when no suffix recurs or while paused.
    public mutating func propose(limit: Int, into proposal: inout [Int32]) {
        proposal.removeAll(keepingCapacity: true)
        let budget = min(limit, run)
        guard budget > 0, pause == 0 else { return }
        history.withUnsafeBufferPointer { h in
            let count = h.count
            var n = min(longestMatch, count - 1)
            while n >= shortestMatch {
                // The most recent earlier occurrence of the last n tokens.
                let key = count - n
                var start = key - 1
                while start >= 0 {
                    var k = 0
                    while k < n && h[start + k] == h[key + k] { k += 1 }
                    if k == n { break }
                    start -= 1
                }
                if start >= 0 {
                    let from = start + n
                    let end = min(from + budget, count)
                    for i in from..<end { proposal.append(h[i]) }
                    return
                }
                n -= 1
            }
        }
    }

    /// Records the outcome of the last proposal: `accepted` of its `proposed` tokens matched
    /// what the model chose.
    public mutating func record(proposed: Int, accepted: Int) {
        guard proposed > 0 else { return }
        verifiedRuns += 1
        proposedTokens += proposed
        acceptedTokens += accepted
        if accepted == proposed {
            run = min(maxRun, run * 2)
            misses = 0
            nextPause = 8
        } else {
            run = max(1, accepted + 1)
            if accepted == 0 {
                misses += 1
                if misses >= 2 {
                    pause = nextPause
                    nextPause = min(nextPause * 2, 256)
                    misses = 0
                }
            } else {
                misses = 0
            }
        }
    }
}
