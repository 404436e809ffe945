#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds `/work/shared`-style reference data: `$LOOM_SHARED`, else a `shared` folder beside an
/// ancestor of the executable (the Loom checkout's `../shared`).
public enum SharedData {
    /// The shared-data directory; the process stops with a message when it cannot be found.
    public static let directory: String = {
        if let env = getenv("LOOM_SHARED") { return String(cString: env) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var dir = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        while let slash = dir.lastIndex(of: "/"), !dir.isEmpty {
            dir = String(dir[..<slash])
            let candidate = (dir.isEmpty ? "" : dir) + "/shared"
            if access(candidate + "/README.md", R_OK) == 0 { return candidate }
        }
        fatalError("fuzz: cannot find the shared data directory; set LOOM_SHARED")
    }()

    /// `directory/relative`.
    public static func path(_ relative: String) -> String { directory + "/" + relative }

    /// The bytes of a file under the shared directory (stops the process if unreadable: the
    /// target cannot run without its fixtures).
    public static func bytes(_ relative: String) -> [UInt8] {
        guard let bytes = readFile(path(relative)) else { fatalError("fuzz: cannot read \(path(relative))") }
        return bytes
    }
}

/// The contents of a file, or nil.
public func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        out.append(contentsOf: chunk[0..<n])
    }
    return out
}
