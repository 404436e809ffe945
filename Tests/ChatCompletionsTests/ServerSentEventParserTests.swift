import Testing
import ChatCompletions

@Suite struct ServerSentEventParserTests {
    private func parse(_ text: String) throws -> [ServerSentEvent] {
        var p = ServerSentEventParser()
        return try p.push(Array(text.utf8)) + p.finish()
    }

    @Test func openAIStyleStream() throws {
        let events = try parse("data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n")
        #expect(events.map(\.data) == ["{\"a\":1}", "{\"b\":2}", "[DONE]"])
        #expect(events.map(\.event) == ["message", "message", "message"])
        #expect(events.last?.isDone == true)
        #expect(events.first?.isDone == false)
    }

    @Test func multiLineDataCommentsAndFields() throws {
        let text = ": keep-alive ping\nevent: delta\ndata: line one\ndata:line two\ndata\nid: 7\nretry: 1500\nunknown: x\n\n: another\ndata: next\n\n"
        let events = try parse(text)
        #expect(events == [
            ServerSentEvent(event: "delta", data: "line one\nline two\n", id: "7", retry: 1500),
            ServerSentEvent(event: "message", data: "next", id: "7"),
        ])
    }

    @Test func dataThatIsNotUTF8IsFlaggedAndStillDecodedWithReplacement() throws {
        var p = ServerSentEventParser()
        let events = try p.push(Array("data: ok\n\ndata: a".utf8) + [0xFF, 0xFE] + Array("b\n\n".utf8))
        #expect(events.map(\.dataWasValidUTF8) == [true, false])
        #expect(events.last?.data == "a\u{FFFD}\u{FFFD}b")
    }

    @Test func lineEndingsCRLFAndCRAndLF() throws {
        let lf = try parse("data: a\ndata: b\n\n")
        #expect(try parse("data: a\r\ndata: b\r\n\r\n") == lf)
        #expect(try parse("data: a\rdata: b\r\r") == lf)
        #expect(try parse("data: a\r\ndata: b\n\r") == lf)
        #expect(lf.map(\.data) == ["a\nb"])
    }

    @Test func onlyOneLeadingSpaceIsStripped() throws {
        #expect(try parse("data:  two\n\n").map(\.data) == [" two"])
        #expect(try parse("data:\n\n").map(\.data) == [""])
    }

    @Test func eventWithoutDataIsNotDispatchedAndTypeResets() throws {
        let events = try parse("event: ping\n\ndata: x\n\n")
        #expect(events == [ServerSentEvent(data: "x")])
    }

    @Test func leadingBOMIsSkippedOnce() throws {
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        bytes += Array("data: x\n\n".utf8)
        var p = ServerSentEventParser()
        #expect(try p.push(bytes).map(\.data) == ["x"])
        var q = ServerSentEventParser()
        #expect(try q.push([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: y\n\n".utf8)).map(\.data) == [])
    }

    @Test func idWithNULIsIgnoredAndIdPersists() throws {
        let events = try parse("id: 1\ndata: a\n\nid: b\u{0}c\ndata: b\n\nid\ndata: c\n\n")
        #expect(events.map(\.id) == ["1", "1", ""])
    }

    @Test func unterminatedEventIsDiscardedAtEnd() throws {
        var p = ServerSentEventParser()
        #expect(try p.push(Array("data: done\n\ndata: partial".utf8)).map(\.data) == ["done"])
        #expect(p.hasPartialEvent)
        #expect(p.finish().isEmpty)
    }

    @Test func oversizedEventIsATypedError() {
        var p = ServerSentEventParser(maximumEventBytes: 16)
        #expect(throws: ServerSentEventError.eventTooLarge(limit: 16)) {
            _ = try p.push(Array("data: 0123456789abcdef\n\n".utf8))
        }
        var q = ServerSentEventParser(maximumEventBytes: 16)
        #expect(throws: ServerSentEventError.eventTooLarge(limit: 16)) {
            _ = try q.push(Array("data: 0123456\ndata: 0123456\ndata: x\n\n".utf8))
        }
    }

    /// The same events however the bytes are split: at every single boundary, at every pair of
    /// boundaries, and one byte at a time.
    @Test func everySplitGivesTheSameEvents() throws {
        var text: [UInt8] = [0xEF, 0xBB, 0xBF]
        text += Array(": c\r\nevent: e\r\ndata: h\u{E9}llo \u{1F600}\r\ndata:x\r\rid: 9\ndata: [DONE]\n\n".utf8)
        var reference = ServerSentEventParser()
        let expected = try reference.push(text)
        #expect(expected.count == 2)
        #expect(expected[0].data == "h\u{E9}llo \u{1F600}\nx")
        for i in 0...text.count {
            for j in i...text.count {
                var p = ServerSentEventParser()
                var got = try p.push(text[0..<i])
                got += try p.push(text[i..<j])
                got += try p.push(text[j...])
                #expect(got == expected, "split at \(i), \(j)")
            }
        }
        var p = ServerSentEventParser()
        var got: [ServerSentEvent] = []
        for b in text { got += try p.push([b]) }
        #expect(got == expected)
    }

    /// Random bytes in random chunks: events or typed errors, never a trap; and chunking never
    /// changes the result.
    @Test func seededFuzzIsChunkingInvariant() throws {
        var state: UInt64 = 0x55E
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let alphabet = Array("data: event:id:retry:\r\n\n\n: x[DONE]{}\u{0}".utf8) + [0xEF, 0xBB, 0xBF, 0xFF]
        for _ in 0..<500 {
            let bytes = (0..<Int(next() % 200)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            var whole = ServerSentEventParser(maximumEventBytes: 64)
            let expected = Result { try whole.push(bytes) }
            var chunked = ServerSentEventParser(maximumEventBytes: 64)
            var got: [ServerSentEvent] = []
            var failed: ServerSentEventError?
            var i = 0
            while i < bytes.count && failed == nil {
                let n = 1 + Int(next() % 16)
                do { got += try chunked.push(bytes[i..<min(bytes.count, i + n)]) } catch { failed = error }
                i += n
            }
            switch expected {
            case .success(let events): #expect(failed == nil && got == events)
            case .failure(let error): #expect(failed == error as? ServerSentEventError)
            }
        }
    }

    @Test func streamAdapterParsesChunksAsTheyArrive() async throws {
        let (chunks, feed) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        var iterator = ServerSentEventStream(chunks).makeAsyncIterator()
        feed.yield(Array("data: one\n".utf8))
        feed.yield(Array("\nda".utf8))
        // The first event is available before the stream has ended.
        #expect(try await iterator.next()?.data == "one")
        feed.yield(Array("ta: two\n\n".utf8))
        #expect(try await iterator.next()?.data == "two")
        feed.finish()
        #expect(try await iterator.next() == nil)
    }
}
