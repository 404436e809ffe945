#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CLI's one way to read a whole file (schemas, templates, messages, suites).
enum FileInput {
    /// The file's bytes.
    /// - Throws: `RuntimeError` naming the file and the system's reason when it cannot be read.
    static func bytes(_ path: String) throws -> [UInt8] {
        guard let f = fopen(path, "rb") else { throw RuntimeError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count {
                if ferror(f) != 0 { throw RuntimeError("cannot read \(path)") }
                return bytes
            }
        }
    }

    /// The file as UTF-8 text (invalid sequences become U+FFFD).
    static func text(_ path: String) throws -> String {
        String(decoding: try bytes(path), as: UTF8.self)
    }
}
