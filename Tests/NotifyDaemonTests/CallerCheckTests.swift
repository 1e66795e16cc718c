import DBus
import Glibc
import NotifyCore
import NotifyTesting
import Testing

@testable import NotifyDaemon

/// The identity cache keeps only connections that are on the bus.
@Suite struct CallerCheckTests {
    /// Every connection is identified when its name appears; when it leaves
    /// before the answer comes back (a LauncherEntry connection of notifyd's
    /// own, a `busctl` that never called), the late answer is not kept: the
    /// soak saw such answers pile up until the cache's limit.
    @Test func anAnswerForAConnectionThatLeftIsNotKept() throws {
        let bus = try TestBus()
        let loop = try EventLoop()
        let check = try CallerCheck(
            bus: .address(bus.address), loop: loop, clock: ManualClock(), logger: LogLines().logger)
        defer { check.stop() }
        let identity = CallerIdentity(userID: getuid(), processID: 4_242, sandbox: .host)

        check.forget(":1.900") {}
        check.deliver(":1.900", .identified(identity))
        #expect(!check.isKnown(":1.900"), "it left before its answer came")
        #expect(check.cachedCount == 0)

        check.deliver(":1.901", .identified(identity))
        #expect(check.isKnown(":1.901"), "a connection still on the bus is kept")
        var cleanedUp = false
        check.forget(":1.901") { cleanedUp = true }
        #expect(!check.isKnown(":1.901") && cleanedUp && check.cachedCount == 0)
    }
}
