import Testing
import HTTPServer

@Suite struct HTTPRequestParserTests {
    private func parseAll(_ text: String, limits: HTTPRequestLimits = HTTPRequestLimits()) throws -> [HTTPRequest] {
        var p = HTTPRequestParser(limits: limits)
        p.append(Array(text.utf8))
        var out: [HTTPRequest] = []
        while let r = try p.next() { out.append(r) }
        return out
    }

    private func parseError(_ text: String, limits: HTTPRequestLimits = HTTPRequestLimits()) -> HTTPRequestParseError? {
        do {
            _ = try parseAll(text, limits: limits)
            return nil
        } catch let e as HTTPRequestParseError {
            return e
        } catch {
            return nil
        }
    }

    @Test func simpleGet() throws {
        let r = try parseAll("GET /v1/models?limit=2 HTTP/1.1\r\nHost: x\r\nX-A:  spaced \t\r\n\r\n")
        #expect(r.count == 1)
        #expect(r[0].method == "GET")
        #expect(r[0].path == "/v1/models")
        #expect(r[0].query == "limit=2")
        #expect(r[0].version == .http11)
        #expect(r[0].headers["x-a"] == "spaced")
        #expect(r[0].body.isEmpty)
    }

    @Test func contentLengthBodyAndPipelining() throws {
        let text = "POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\n\r\n"
        let r = try parseAll(text)
        #expect(r.map(\.path) == ["/a", "/b"])
        #expect(r[0].bodyText == "hello")
    }

    @Test func everySplitPointGivesTheSameRequests() throws {
        let text = "POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello\r\nPOST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: t\r\n\r\nGET /b HTTP/1.0\nConnection: keep-alive\n\n"
        let bytes = Array(text.utf8)
        let whole = try parseAll(text)
        #expect(whole.map(\.path) == ["/a", "/c", "/b"])
        #expect(whole[1].bodyText == "abcde")
        for split in 0...bytes.count {
            var p = HTTPRequestParser()
            var got: [HTTPRequest] = []
            p.append(bytes[0..<split])
            while let r = try p.next() { got.append(r) }
            p.append(bytes[split...])
            while let r = try p.next() { got.append(r) }
            #expect(got.map(\.path) == whole.map(\.path), "split at \(split)")
            #expect(got.map(\.body) == whole.map(\.body), "split at \(split)")
            #expect(!p.hasPartialRequest)
        }
    }

    @Test func byteAtATime() throws {
        let text = Array("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n".utf8)
        var p = HTTPRequestParser()
        var got: [HTTPRequest] = []
        for b in text {
            p.append([b])
            if let r = try p.next() { got.append(r) }
        }
        #expect(got.count == 1)
        #expect(got.first?.bodyText == "0123456789")
    }

    @Test func keepAliveSemantics() throws {
        #expect(try parseAll("GET / HTTP/1.1\r\n\r\n")[0].wantsKeepAlive)
        #expect(try !parseAll("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")[0].wantsKeepAlive)
        #expect(try !parseAll("GET / HTTP/1.0\r\n\r\n")[0].wantsKeepAlive)
        #expect(try parseAll("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")[0].wantsKeepAlive)
    }

    @Test func expectContinueIsVisibleBeforeTheBody() throws {
        var p = HTTPRequestParser()
        p.append(Array("POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8))
        #expect(try p.next() == nil)
        #expect(p.pendingHead?.expectsContinue == true)
        p.append(Array("abc".utf8))
        #expect(try p.next()?.bodyText == "abc")
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET /\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\n\r\n", 400),
        ("GET http://h/ HTTP/1.1\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET / HTTP/1.1x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nBad Name: v\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nA: b\u{01}c\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    ])
    func malformedRequestsMapToStatus(text: String, status: Int) {
        #expect(parseError(text)?.status == status, "\(text.debugDescription)")
    }

    @Test func limits() {
        let small = HTTPRequestLimits(maxHeaderBytes: 64, maxHeaderCount: 2, maxBodyBytes: 4)
        #expect(parseError("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100), limits: small) == .headersTooLarge)
        #expect(parseError("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: small) == .headersTooLarge)
        // Complete in one read but over the limit: still refused.
        #expect(parseError("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100) + "\r\n\r\n", limits: small) == .headersTooLarge)
        #expect(parseError("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", limits: small) == .bodyTooLarge)
        #expect(parseError("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n", limits: small) == .bodyTooLarge)
        #expect(parseError("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd", limits: small) == nil)
    }

    @Test func leadingBlankLinesAreIgnored() throws {
        let r = try parseAll("\r\n\r\nGET /x HTTP/1.1\r\n\r\n")
        #expect(r.map(\.path) == ["/x"])
    }
}
