#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads standard input without Foundation.
enum StandardInput {
    /// Every byte until end of file.
    static func readAll() throws(RuntimeError) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n == 0 { return out }
            if n < 0 {
                if errno == EINTR { continue }
                throw RuntimeError("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// All of standard input as text; invalid UTF-8 is an error rather than silently repaired.
    static func readText() throws(RuntimeError) -> String {
        let bytes = try readAll()
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw RuntimeError("standard input is not valid UTF-8")
        }
        return text
    }
}
