#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Progress for long work (model load, prompt evaluation, bench repetitions, grammar replay),
/// written on one self-overwriting stderr line.
///
/// Shown only when a person is watching: stderr must be a terminal, and machine-readable runs
/// (`--json`) stay silent so scripts that capture both streams see only their document. Updates
/// are throttled so a tight loop does not spend its time redrawing the terminal.
struct Progress {
    /// Whether anything is written at all.
    let isEnabled: Bool
    private var lastDraw = 0.0
    private var visible = false

    /// Progress that shows when stderr is a terminal and `json` output was not asked for.
    init(json: Bool) {
        isEnabled = !json && StandardError.isTerminal
    }

    /// Progress that never shows (for callers that decide visibility themselves).
    static var silent: Progress { Progress(enabled: false) }

    private init(enabled: Bool) { isEnabled = enabled }

    /// Replaces the progress line with `text` (throttled to ~10 redraws a second unless `force`).
    mutating func update(_ text: String, force: Bool = false) {
        guard isEnabled else { return }
        let now = Progress.monotonicSeconds()
        if !force && visible && now - lastDraw < 0.1 { return }
        lastDraw = now
        visible = true
        StandardError.write("\r\u{1B}[K" + text)
    }

    /// `label i/n`, throttled.
    mutating func step(_ label: String, _ index: Int, of total: Int) {
        update("\(label) \(index)/\(total)", force: index == total)
    }

    /// Shows `text` while `body` runs, then clears it: for single long operations such as loading
    /// a model or evaluating a prompt.
    mutating func during<T>(_ text: String, _ body: () throws -> T) rethrows -> T {
        update(text + "…", force: true)
        defer { clear() }
        return try body()
    }

    /// Removes the progress line, leaving the cursor at the start of an empty line.
    mutating func clear() {
        guard isEnabled, visible else { return }
        visible = false
        StandardError.write("\r\u{1B}[K")
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
