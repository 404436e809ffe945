// HTTPServer: a small POSIX-socket HTTP/1.1 server (keep-alive, chunked SSE, limits) for `loom serve`.
