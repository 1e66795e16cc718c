import DBus
import Foundation
import Testing
import NotifyTesting

/// The real notifyd under libfaketime (the `faketime` package; its
/// thread-safe `libfaketimeMT`, since notifyd starts threads at once: the
/// plain library can hang in its initialisation when two threads read the
/// clock together), with only
/// its wall clock stepped: `CLOCK_BOOTTIME` and `CLOCK_MONOTONIC` run on
/// (`DONT_FAKE_MONOTONIC`). The kernel sees no step, so this checks the
/// daemon's own detection at its next wake-up; a real `settimeofday` also
/// wakes it at once (`TFD_TIMER_CANCEL_ON_SET`), which needs a time the
/// tests may not set. (Not in CI's sanitizer run: libfaketime hangs in
/// its initialisation under AddressSanitizer's runtime.) A handler's deadline is elapsed time: a clock set an
/// hour back or forward moves its expiry by no more than a second or two.
@Suite(.serialized) struct ClockStepEndToEndTests {
    static let libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"

    /// A daemon whose wall clock is `offset` away, as written to `file`.
    struct SteppedDaemon {
        let fixture: Fixture
        let offsetFile: URL
        let completed: SignalRecorder

        init() throws {
            guard FileManager.default.fileExists(atPath: ClockStepEndToEndTests.libfaketime) else {
                throw TestFailure("\(ClockStepEndToEndTests.libfaketime) is missing: install faketime (scripts/test does)")
            }
            offsetFile = try makeTemporaryDirectory(prefix: "notifyd-faketime").appendingPathComponent("offset")
            try "+0\n".write(to: offsetFile, atomically: true, encoding: .utf8)
            fixture = try Fixture(extraEnvironment: [
                "LD_PRELOAD": ClockStepEndToEndTests.libfaketime, "FAKETIME_TIMESTAMP_FILE": offsetFile.path,
                "FAKETIME_NO_CACHE": "1", "DONT_FAKE_MONOTONIC": "1",
            ])
            completed = try SignalRecorder(
                address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "SessionCompleted")])
        }

        /// Sets notifyd's wall clock `offset` away from the real one (`-1h`, `+1h`).
        func setClock(_ offset: String) throws {
            try "\(offset)\n".write(to: offsetFile, atomically: true, encoding: .utf8)
        }

        /// Waits for the handler's SessionCompleted; returns when it came.
        func waitForExpiry(of handler: UInt64, seconds: Double) -> Date? {
            guard
                completed.wait(seconds: seconds, until: { $0.arguments.count == 4 && $0.arguments[2] == .uint64(handler) })
                    != nil
            else { return nil }
            return Date()
        }
    }

    @Test(.timeLimit(.minutes(1))) func aClockSetBackAnHourDoesNotDelayAnExpiry() throws {
        let daemon = try SteppedDaemon()
        let stored = Date()
        let handler = try daemon.fixture.event("back", app: "app", ["timeout": .uint32(4)])
        try daemon.setClock("-1h")
        let expired = try #require(daemon.waitForExpiry(of: handler, seconds: 20), "expired an hour late, or never")
        let after = expired.timeIntervalSince(stored)
        #expect(after > 3 && after < 6.5, "expired \(after) s after its event, its timeout is 4 s")
        #expect(daemon.fixture.daemon.log.contains("the wall clock was set back by"))
    }

    @Test(.timeLimit(.minutes(1))) func aClockSetForwardAnHourDoesNotHastenAnExpiry() throws {
        let daemon = try SteppedDaemon()
        let stored = Date()
        let handler = try daemon.fixture.event("forward", app: "app", ["timeout": .uint32(6)])
        try daemon.setClock("+1h")
        // Another event wakes notifyd: it notices the step, and must not
        // take the first handler's deadline as an hour past.
        let other = try daemon.fixture.event("waker", app: "app", ["timeout": .uint32(30)])
        #expect(try daemon.fixture.pending("forward") == 1, "expired at once by the step")
        let expired = try #require(daemon.waitForExpiry(of: handler, seconds: 20))
        let after = expired.timeIntervalSince(stored)
        #expect(after > 5 && after < 8.5, "expired \(after) s after its event, its timeout is 6 s")
        #expect(try daemon.fixture.pending("waker") == 1, "the other handler (30 s) is still pending")
        _ = other
    }
}
