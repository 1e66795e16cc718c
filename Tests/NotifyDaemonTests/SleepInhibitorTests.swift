import DBus
import Glibc
import Logging
import Synchronization
import Testing

@testable import NotifyDaemon

/// The sleep lock without a system bus (a container, a CI machine): tasks
/// and push deliveries go on without it, and a bus that is not there is
/// not looked for again at every lock wanted.
@Suite struct SleepInhibitorTests {
    @Test func aSystemBusThatIsNotThereIsTriedOncePerWaitNotAtEveryLockWanted() throws {
        let held = LockedFlags()
        let wait: UInt64 = 300_000_000
        let inhibitor = try SleepInhibitor(
            bus: .address("unix:path=/nonexistent/notifyd-test/system_bus_socket"), reconnectWaitNanoseconds: wait,
            logger: Logger(label: "test")
        ) { isHeld in held.note(isHeld) }
        defer { inhibitor.stop() }
        for delivery in 0..<50 {
            inhibitor.want("delivering push message \(delivery)")
            inhibitor.want(nil)
        }
        let firstBurstEnded = EventLoop.now()
        #expect(inhibitor.connectionAttempts() == 1)
        // Once the wait is over, the next lock wanted looks for the bus again.
        while EventLoop.now() - firstBurstEnded < wait + 50_000_000 { usleep(20_000) }
        inhibitor.want("delivering one more push message")
        inhibitor.want(nil)
        #expect(inhibitor.connectionAttempts() == 2)
        #expect(held.everHeld == false, "no lock without a system bus")
    }
}

/// Whether a lock was ever reported held (written on the inhibitor's thread).
private final class LockedFlags: Sendable {
    private let held = Mutex(false)
    func note(_ isHeld: Bool) { if isHeld { held.withLock { $0 = true } } }
    var everHeld: Bool { held.withLock { $0 } }
}
