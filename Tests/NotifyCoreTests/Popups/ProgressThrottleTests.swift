import NotifyCore
import Testing

@Suite struct ProgressThrottleTests {
    let session = try! SessionID("download 1")
    let other = try! SessionID("download 2")
    static let ms: Microseconds = 1_000

    @Test func firstValueShowsNow() {
        var throttle = ProgressThrottle()
        #expect(throttle.offer(session: session, at: 1_000 * Self.ms) == .now)
    }

    @Test func valuesWithinTheIntervalWaitForOneTimer() {
        var throttle = ProgressThrottle()
        #expect(throttle.offer(session: session, at: 0) == .now)
        #expect(throttle.offer(session: session, at: 100 * Self.ms) == .later(at: 500 * Self.ms))
        #expect(throttle.offer(session: session, at: 200 * Self.ms) == .alreadyScheduled)
        #expect(throttle.scheduled(session: session) == 500 * Self.ms)
        throttle.flushed(session: session, at: 510 * Self.ms)
        #expect(throttle.scheduled(session: session) == nil)
        #expect(throttle.offer(session: session, at: 600 * Self.ms) == .later(at: 1_010 * Self.ms))
    }

    @Test func valuesAtLeastAnIntervalApartShowNow() {
        var throttle = ProgressThrottle()
        #expect(throttle.offer(session: session, at: 0) == .now)
        #expect(throttle.offer(session: session, at: ProgressThrottle.interval) == .now)
        #expect(throttle.offer(session: session, at: ProgressThrottle.interval * 2 + 1) == .now)
        #expect(
            throttle.offer(session: session, at: ProgressThrottle.interval * 3)
                == .later(at: ProgressThrottle.interval * 3 + 1))
    }

    @Test func sessionsAreIndependent() {
        var throttle = ProgressThrottle()
        #expect(throttle.offer(session: session, at: 0) == .now)
        #expect(throttle.offer(session: other, at: 10) == .now)
        #expect(throttle.offer(session: session, at: 20) == .later(at: 500 * Self.ms))
        #expect(throttle.offer(session: other, at: 30) == .later(at: 500 * Self.ms + 10))
    }

    @Test func endForgetsTheSession() {
        var throttle = ProgressThrottle()
        _ = throttle.offer(session: session, at: 0)
        _ = throttle.offer(session: session, at: 1)
        throttle.end(session: session)
        #expect(throttle.scheduled(session: session) == nil)
        #expect(throttle.offer(session: session, at: 2) == .now)
    }

    @Test func aClockGoingBackShowsNow() {
        var throttle = ProgressThrottle()
        _ = throttle.offer(session: session, at: 10_000 * Self.ms)
        #expect(throttle.offer(session: session, at: 1_000 * Self.ms) == .now)
    }

    @Test func idleSessionsArePruned() throws {
        var throttle = ProgressThrottle()
        _ = throttle.offer(session: session, at: 0)
        _ = throttle.offer(session: session, at: 1)  // pending: kept
        _ = throttle.offer(session: other, at: 0)
        throttle.prune(at: ProgressThrottle.interval)
        #expect(throttle.trackedSessionCount == 1)
        for index in 0..<1_000 {
            _ = throttle.offer(session: try SessionID("s\(index)"), at: Microseconds(index) * ProgressThrottle.interval)
        }
        #expect(throttle.trackedSessionCount <= 130)
    }
}
