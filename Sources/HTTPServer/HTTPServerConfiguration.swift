// Everything that shapes the server's behaviour, in one value so `loom serve` maps flags 1:1.

/// Server settings. Defaults are safe for a local inference server: loopback only, one
/// generation at a time, a short queue, bounded sizes and timeouts.
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// Address to bind. Default `127.0.0.1`: exposing a model beyond the machine is an explicit choice.
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks a free ephemeral port (read it from `HTTPServer.port`).
    public var port: UInt16 = 8080
    /// Requests on limited routes that may run at once (≥ 1).
    public var parallel: Int = 1
    /// Requests on limited routes that may wait for a slot (≥ 0); beyond that → 429.
    public var queue: Int = 8
    /// Request size limits (`maxBodyBytes` → 413, headers → 431).
    public var limits = HTTPRequestLimits()
    /// Time from dispatching a request to finishing its response (queue wait and streaming
    /// included); on expiry the handler is cancelled and the client gets 504 (or, mid-stream,
    /// a closed connection). nil = unlimited.
    public var requestTimeout: Duration? = .seconds(600)
    /// Time a client has to deliver a whole request once its first byte arrived (bounds
    /// slowloris-style trickling) → 408 and close.
    public var readTimeout: Duration = .seconds(30)
    /// Time an idle keep-alive connection stays open waiting for its next request.
    public var idleTimeout: Duration = .seconds(60)
    /// Time a blocked send may wait for the client to read before the connection is dropped.
    public var sendTimeout: Duration = .seconds(60)
    /// Open connections served at once; extra connections get 503 and are closed.
    public var maxConnections: Int = 256
    /// Browser origins allowed to call the server (CORS): `["*"]` for any, exact origins such
    /// as `"http://localhost:3000"` otherwise. Empty (the default) sends no CORS headers, so
    /// web pages cannot read responses. Preflight `OPTIONS` requests are answered without the
    /// router's authorizer (browsers never send credentials on them); the real request still needs it.
    public var corsAllowedOrigins: [String] = []
    /// The listen(2) backlog.
    public var backlog: Int32 = 128

    /// Creates a configuration with the defaults above.
    public init() {}

    /// Creates a configuration, overriding the most common settings.
    public init(host: String = "127.0.0.1", port: UInt16 = 8080, parallel: Int = 1, queue: Int = 8,
                maxBodyBytes: Int = 8 * 1024 * 1024, requestTimeout: Duration? = .seconds(600)) {
        self.host = host
        self.port = port
        self.parallel = parallel
        self.queue = queue
        self.limits.maxBodyBytes = maxBodyBytes
        self.requestTimeout = requestTimeout
    }
}
