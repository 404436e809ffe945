#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A deterministic, coverage-blind mutation fuzzer for toolchains without libFuzzer.
///
/// Accepts the subset of libFuzzer's command line that `scripts/fuzz` uses: corpus directories
/// or files, `-runs=N`, `-max_total_time=S`, `-seed=N`, `-max_len=N`; other `-flags` are ignored.
/// Every corpus file is run as is, then mutants of them (bit flips, interesting bytes, chunk
/// insertion, deletion, duplication and splicing) drawn from a seeded SplitMix64 stream, so a run
/// with the same seed and corpus replays exactly.
struct MutationHarness {
    var corpus: [[UInt8]] = []
    var runs = Int.max
    var seconds = 60
    var seed: UInt64 = 1
    var maxLength = 4096
    private var state: UInt64 = 0

    init(arguments: [String]) {
        var explicitRuns = false
        for arg in arguments {
            if arg.hasPrefix("-") {
                let parts = arg.dropFirst().split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let value = Int(parts[1]) else { continue }
                switch parts[0] {
                case "runs": runs = value; explicitRuns = true
                case "max_total_time": seconds = value
                case "seed": seed = UInt64(truncatingIfNeeded: value)
                case "max_len": maxLength = value
                default: break
                }
            } else {
                corpus += Self.load(arg)
            }
        }
        if explicitRuns && !arguments.contains(where: { $0.hasPrefix("-max_total_time=") }) { seconds = Int.max }
        if corpus.isEmpty { corpus = [[]] }
        state = seed
    }

    static func load(_ path: String) -> [[UInt8]] {
        if let dir = opendir(path) {
            defer { closedir(dir) }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if !name.hasPrefix(".") { names.append(name) }
            }
            return names.sorted().compactMap { readFile(path + "/" + $0) }
        }
        return readFile(path).map { [$0] } ?? []
    }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    private mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var b = input
        let interesting: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x28, 0x29, 0x7C, 0x2A, 0x25, 0xC3, 0xF0]
        for _ in 0...below(4) {
            switch below(7) {
            case 0 where !b.isEmpty: b[below(b.count)] ^= UInt8(1) << UInt8(below(8))
            case 1 where !b.isEmpty: b[below(b.count)] = interesting[below(interesting.count)]
            case 2: b.insert(interesting[below(interesting.count)], at: below(b.count + 1))
            case 3 where !b.isEmpty:
                let start = below(b.count)
                b.removeSubrange(start..<min(b.count, start + 1 + below(16)))
            case 4 where !b.isEmpty:
                let start = below(b.count), end = min(b.count, start + 1 + below(32))
                b.insert(contentsOf: Array(b[start..<end]), at: below(b.count + 1))
            case 5:
                let other = corpus[below(corpus.count)]
                if !other.isEmpty {
                    let start = below(other.count), end = min(other.count, start + 1 + below(64))
                    b.insert(contentsOf: Array(other[start..<end]), at: below(b.count + 1))
                }
            default:
                if !b.isEmpty { b.swapAt(below(b.count), below(b.count)) }
            }
        }
        if b.count > maxLength { b.removeLast(b.count - maxLength) }
        return b
    }

    mutating func run(_ body: ([UInt8]) -> Void) -> Int32 {
        let start = time(nil)
        var executed = 0
        for input in corpus where executed < runs {
            body(input)
            executed += 1
        }
        while executed < runs, seconds == Int.max || Int(time(nil) - start) < seconds {
            body(mutate(corpus[below(corpus.count)]))
            executed += 1
            if executed & (executed - 1) == 0 { print("#\(executed)\tdeterministic harness") }
        }
        let elapsed = max(1, Int(time(nil) - start))
        print("Done \(executed) runs in \(elapsed) second(s) (deterministic harness, seed \(seed), no coverage feedback)")
        return 0
    }
}
