import Foundation
import Testing
import HTTPServer

/// SplitMix64: a fixed seed gives the same hostile inputs on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// The limit only catches a hang: beside the model suites of a full run, the bounded work takes
// more than two minutes on two cores.
@Suite(.timeLimit(.minutes(6))) struct HTTPServerFuzzTests {
    private static let seeds: [String] = [
        "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /echo HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
        "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi",
    ]

    /// Parser-level: thousands of mutated and random inputs, split at random points; the parser
    /// must return requests or typed errors, never trap.
    @Test func parserSurvivesMutatedInput() {
        var rng = SeededGenerator(state: 0x10AD)
        let limits = HTTPRequestLimits(maxHeaderBytes: 512, maxHeaderCount: 8, maxBodyBytes: 256)
        for round in 0..<4000 {
            var bytes: [UInt8]
            if round % 4 == 0 {
                bytes = (0..<Int.random(in: 0..<300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
                for _ in 0..<Int.random(in: 1...6, using: &rng) where !bytes.isEmpty {
                    let i = Int.random(in: 0..<bytes.count, using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0: bytes[i] = UInt8.random(in: 0...255, using: &rng)
                    case 1: bytes.remove(at: i)
                    case 2: bytes.insert(contentsOf: bytes[i...].prefix(Int.random(in: 1...40, using: &rng)), at: i)
                    default: bytes.insert(["\r", "\n", ":", " ", "0", "f"].randomElement(using: &rng)!.utf8.first!, at: i)
                    }
                }
            }
            var p = HTTPRequestParser(limits: limits)
            var offset = 0
            loop: while offset < bytes.count {
                let n = Int.random(in: 1...max(1, bytes.count - offset), using: &rng)
                p.append(bytes[offset..<offset + n])
                offset += n
                do {
                    while let r = try p.next() { #expect(r.body.count <= limits.maxBodyBytes) }
                } catch {
                    #expect((400...505).contains(error.status))
                    break loop
                }
            }
        }
    }

    /// Socket-level: random and truncated requests on real connections, then a well-formed
    /// request must still be served.
    @Test func serverSurvivesHostileConnections() async throws {
        try await withServer({ $0.readTimeout = .milliseconds(100); $0.limits = HTTPRequestLimits(maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 1024) }, routes: { r in
            r.add("GET", "/hello", limited: false) { _ in .text("hi") }
            r.add("POST", "/echo") { req in HTTPResponse(body: req.body) }
        }) { _, port in
            var rng = SeededGenerator(state: 42)
            for round in 0..<60 {
                let c = try RawClient(port: port)
                var bytes: [UInt8]
                switch round % 3 {
                case 0: bytes = (0..<Int.random(in: 1..<2000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                case 1:
                    let seed = Array(Self.seeds[round % Self.seeds.count].utf8)
                    bytes = Array(seed.prefix(Int.random(in: 0..<seed.count, using: &rng)))
                default:
                    bytes = Array("GET /hello HTTP/1.1\r\n".utf8) + Array(repeating: UInt8(ascii: "X"), count: Int.random(in: 0..<5000, using: &rng))
                }
                try? await c.send(bytes)
                // Half the time hang up at once, otherwise wait for the server's verdict
                // (an error status, a timeout 408, or a close).
                if round % 2 == 0 {
                    c.shutdownBoth()
                } else {
                    _ = try? await c.readResponse()
                }
            }
            let ok = try RawClient(port: port)
            try await ok.send("GET /hello HTTP/1.1\r\n\r\n")
            #expect(try await ok.readResponse().text == "hi")
        }
    }
}
