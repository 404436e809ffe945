/// The operating system refused to create a thread (`pthread_create` failed, typically for lack
/// of memory for the stack or because a thread limit was reached). Callers map it to their own
/// error type; the work was not run.
public struct DedicatedThreadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `pthread_create` status (an `errno` value such as `EAGAIN`).
    public let status: Int32
    /// The stack size that was asked for, in bytes.
    public let stackSize: Int

    /// An error for a failed `pthread_create` with `status`, asked for a `stackSize`-byte stack.
    public init(status: Int32, stackSize: Int) {
        self.status = status
        self.stackSize = stackSize
    }

    /// One line naming the failure.
    public var description: String {
        "could not create a thread with a \(stackSize)-byte stack (pthread_create status \(status))"
    }
}
