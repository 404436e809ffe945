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

/// How a failure is reported: one readable line, then the typed error's identity so a report
/// can be matched to the case that produced it (`ModelLoadError.unreadable`).
enum ErrorReport {
    /// `loom COMMAND: <description> [<Type>.<case>]` (no suffix for the CLI's own errors).
    static func line(command: String, _ error: any Error) -> String {
        var text = message(error)
        if !(error is RuntimeError) && !(error is UsageError) {
            text += " [" + identity(error) + "]"
        }
        // Multi-line descriptions (a typed error quoting a template) are folded into one line.
        let folded = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " ⏎ ")
        return "loom \(command): " + folded
    }

    /// The human-readable description (every typed error in Loom is `CustomStringConvertible`;
    /// others print their case and payload).
    static func message(_ error: any Error) -> String {
        String(describing: error)
    }

    /// `Type.case` for enums, `Type` otherwise.
    static func identity(_ error: any Error) -> String {
        let type = String(describing: Swift.type(of: error))
        let mirror = Mirror(reflecting: error)
        if mirror.displayStyle == .enum {
            if let label = mirror.children.first?.label { return type + "." + label }
            return type + "." + String(describing: error).prefix { $0 != "(" }
        }
        return type
    }
}
