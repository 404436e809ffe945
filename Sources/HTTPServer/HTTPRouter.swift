// Exact method + path routing. The API surface is a handful of fixed paths, so no patterns.
// The router is the application mounted on the server, so it also carries the application's
// conventions the server applies on its behalf: who may call it and how refusals look.

/// Maps method + path to handlers; a known path with an unregistered method is a 405.
public struct HTTPRouter: Sendable {
    /// One registered route.
    public struct Route: Sendable {
        /// The method (case-sensitive, e.g. `POST`).
        public let method: String
        /// The exact path (no query), e.g. `/v1/chat/completions`.
        public let path: String
        /// Whether the route counts against `parallel`/`queue` (generation does; `/health` does not).
        public let limited: Bool
        /// Whether the route skips the `authorizer` (e.g. a load balancer's health probe).
        public let isPublic: Bool
        /// The handler.
        public let handler: HTTPHandler
    }

    /// The routes, in registration order.
    public private(set) var routes: [Route] = []

    /// Checked before every non-public route and before answering 404/405 (so an unauthorized
    /// client cannot probe which paths exist). nil, the default, lets every request through.
    public var authorizer: HTTPAuthorizer?

    /// Renders every refusal the server makes itself (parse errors, 404, 405, 408, 429, 503,
    /// 504, and the authorizer's). The default is `HTTPServerRefusal.plainTextResponse`.
    public var refusalRenderer: HTTPRefusalRenderer = { $0.plainTextResponse }

    /// Creates an empty router.
    public init() {}

    /// Registers `handler` for `method path`. `limited` routes go through the concurrency gate;
    /// `isPublic` routes are served without asking the `authorizer`. A later registration of the same
    /// method and path replaces the earlier one.
    public mutating func add(_ method: String, _ path: String, limited: Bool = true, isPublic: Bool = false,
                             _ handler: @escaping HTTPHandler) {
        routes.removeAll { $0.method == method && $0.path == path }
        routes.append(Route(method: method, path: path, limited: limited, isPublic: isPublic, handler: handler))
    }

    /// The outcome of routing one request.
    public enum Match: Sendable {
        /// A handler was found.
        case found(Route)
        /// The path exists but not for this method; `allowed` lists the methods it has.
        case methodNotAllowed(allowed: [String])
        /// No route has this path.
        case notFound
    }

    /// Routes `method path`.
    public func match(method: String, path: String) -> Match {
        let forPath = routes.filter { $0.path == path }
        if forPath.isEmpty { return .notFound }
        if let r = forPath.first(where: { $0.method == method }) { return .found(r) }
        return .methodNotAllowed(allowed: forPath.map(\.method))
    }
}
