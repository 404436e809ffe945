#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A loopback TCP port that refuses every connection: a socket bound to it that never listens.
/// Holding the port keeps it from every other server in the process (a port bound and then
/// closed can be taken by a server another test starts meanwhile, which then answers instead of
/// refusing).
final class RefusingPort {
    private let fd: Int32
    /// The bound port.
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { s in
                bind(fd, s, length) == 0 && getsockname(fd, s, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }

    /// The Chat Completions base URL of this port.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }
}
