#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import LoomCLI

@Suite struct SignalWaiterTests {
    @Test func signalWaiterDeliversTheSignal() async throws {
        let waiter = try SignalWaiter([SIGUSR2])
        // Process-directed, like Ctrl-C or `kill`: raise() would target this cooperative-pool
        // thread, where dispatch keeps signals blocked.
        kill(getpid(), SIGUSR2)
        #expect(await waiter.next() == SIGUSR2)
    }
}
