/// The pipe that signal handlers write to could not be created, so signals cannot be waited for.
struct SignalWaiterError: Error, CustomStringConvertible {
    /// The system's description of the failure (`strerror`).
    let reason: String

    /// One line naming the failure.
    var description: String { "cannot wait for signals: pipe failed: \(reason)" }
}
