#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `loom` subcommand. Each lives in its own file and is listed in `LoomCommands.all`.
protocol LoomCommand: Sendable {
    /// The word after `loom` (`inspect`, `tokenize`, …).
    static var name: String { get }
    /// One line for `loom --help`.
    static var summary: String { get }
    /// The full usage text printed by `--help` and on usage errors.
    static var usage: String { get }
    /// Runs the command with the arguments after its name.
    static func run(_ arguments: [String]) async throws
}

/// Reads the process environment without Foundation.
enum ProcessEnvironment {
    static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

/// Writes all of `text` to a file descriptor (unbuffered, so streamed text appears at once).
func writeAll(_ fd: Int32, _ text: String) {
    var t = text
    t.withUTF8 { buf in
        var done = 0
        while done < buf.count {
            let n = Glibc.write(fd, buf.baseAddress! + done, buf.count - done)
            if n <= 0 { if n < 0 && errno == EINTR { continue }; return }
            done += n
        }
    }
}

/// Writes to standard error (diagnostics and progress never go to stdout).
enum StandardError {
    static func write(_ text: String) { writeAll(2, text) }
    static func line(_ text: String) { write(text + "\n") }
    /// True when stderr is a terminal, so progress output is wanted.
    static var isTerminal: Bool { isatty(2) != 0 }
}

/// Writes to standard output without an added newline.
enum StandardOutput {
    static func write(_ text: String) { writeAll(1, text) }
    /// Kept for call sites that mark where output must be complete; writes are unbuffered.
    static func flush() {}
}
