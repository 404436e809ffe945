#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much call stack the current thread has left, so the recursive parts of compilation (schema
/// nesting, `$ref` chains, parenthesised GBNF and regexes) fail with a typed error instead of
/// overflowing, whatever thread they run on — Swift concurrency's cooperative threads have small
/// stacks (512 KiB), the main thread 8 MiB.
struct StackGuard {
    /// Lowest usable address (the stack grows down on every platform Loom runs on); 0 if unknown.
    private let floor: UInt

    /// Stack kept free below the guard for the work between checks and for error handling.
    static let reserve: UInt = 128 << 10

    /// A guard for the calling thread.
    init() {
        var low: UInt = 0
        #if canImport(Glibc)
        // `pthread_getattr_np` is a GNU extension the Glibc module does not import: look it up.
        typealias GetAttr = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        if let sym = dlsym(nil, "pthread_getattr_np") {
            let getattr = unsafeBitCast(sym, to: GetAttr.self)
            var attr = pthread_attr_t()
            if getattr(pthread_self(), &attr) == 0 {
                var addr: UnsafeMutableRawPointer?
                var size = 0
                if pthread_attr_getstack(&attr, &addr, &size) == 0, let addr {
                    low = UInt(bitPattern: addr)
                }
                pthread_attr_destroy(&attr)
            }
        }
        #elseif canImport(Darwin)
        let top = UInt(bitPattern: pthread_get_stackaddr_np(pthread_self()))
        low = top - UInt(pthread_get_stacksize_np(pthread_self()))
        #endif
        floor = low == 0 ? 0 : low + StackGuard.reserve
    }

    /// True while the caller's frame is above the reserve.
    @inline(never)
    func hasRoom() -> Bool { hasRoom(bytes: 0) }

    /// True while `bytes` more stack fit above the reserve (recursion that cannot check as it goes,
    /// such as the JSON parser, asks for its whole depth up front).
    @inline(never)
    func hasRoom(bytes: UInt) -> Bool {
        guard floor != 0 else { return true }
        var marker: UInt8 = 0
        let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        // Under AddressSanitizer's use-after-return mode locals live on a "fake stack" outside
        // the thread's stack and this answer means nothing: sanitizer runs set
        // detect_stack_use_after_return=0 (scripts/sanitizers/run does).
        return here > floor && here - floor > bytes
    }
}
