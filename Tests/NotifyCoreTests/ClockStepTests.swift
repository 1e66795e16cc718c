import NotifyCore
import Testing

/// Deadlines are elapsed time: a handler expires the same time after its
/// event whatever the wall clock does, and whether or not the machine slept.
@Suite struct ClockStepTests {
    let app = try! AppID("org.example.App")
    static let second: Microseconds = 1_000_000
    static let hour: Microseconds = 3_600 * second

    /// A book with one handler stored at wall time `at`, `timeout` seconds.
    func book(storedAt at: Microseconds, timeout: UInt32) throws -> SessionBook {
        var book = SessionBook()
        _ = try book.record(WorkerEvent(timeout: timeout), session: SessionID("s"), app: app, at: at)
        return book
    }

    @Test func aSmallDriftIsNotAStep() {
        var detector = ClockStepDetector(wall: 1_000 * Self.second, elapsed: 10 * Self.second)
        let none = detector.step(wall: 1_100 * Self.second + 900_000, elapsed: 110 * Self.second)
        #expect(none == nil)
        let stillNone = detector.step(wall: 1_200 * Self.second, elapsed: 210 * Self.second)
        #expect(stillNone == nil)
    }

    /// Asleep, both clocks advance: no step, and the deadline timer (on
    /// elapsed time) finds the handler due at resume.
    @Test func timeAsleepIsNotAStepAndTheDeadlinePassesDuringIt() throws {
        var detector = ClockStepDetector(wall: 1_000 * Self.second, elapsed: 10 * Self.second)
        var book = try book(storedAt: 1_000 * Self.second, timeout: 60)
        // Asleep for an hour: both clocks moved by an hour.
        let none = detector.step(wall: 1_000 * Self.second + Self.hour, elapsed: 10 * Self.second + Self.hour)
        #expect(none == nil)
        #expect(book.expire(at: 1_000 * Self.second + Self.hour).count == 1, "expired at resume, not an hour later")
    }

    @Test func aClockSetBackAnHourMovesTheDeadlineBackAnHour() throws {
        var detector = ClockStepDetector(wall: 1_000 * Self.second, elapsed: 10 * Self.second)
        var book = try book(storedAt: 1_000 * Self.second, timeout: 60)
        // 5 s later the clock is set back an hour.
        let wall = 1_005 * Self.second - Self.hour
        let found = detector.step(wall: wall, elapsed: 15 * Self.second)
        let step = try #require(found)
        #expect(step == -Self.hour)
        #expect(book.shiftDeadlines(by: step) == 1)
        #expect(book.nextDeadline == 1_060 * Self.second - Self.hour)
        #expect(book.expire(at: wall + 54 * Self.second).isEmpty, "not before its 60 s")
        #expect(book.expire(at: wall + 55 * Self.second).count == 1, "60 s after its event, not an hour late")
    }

    @Test func aClockSetForwardAnHourMovesTheDeadlineForward() throws {
        var detector = ClockStepDetector(wall: 1_000 * Self.second, elapsed: 10 * Self.second)
        var book = try book(storedAt: 1_000 * Self.second, timeout: 1_800)
        let wall = 1_060 * Self.second + Self.hour
        let found = detector.step(wall: wall, elapsed: 70 * Self.second)
        let step = try #require(found)
        #expect(step == Self.hour)
        book.shiftDeadlines(by: step)
        #expect(book.expire(at: wall).isEmpty, "not expired by the step")
        #expect(book.expire(at: wall + 1_739 * Self.second).isEmpty)
        #expect(book.expire(at: wall + 1_740 * Self.second).count == 1, "1,800 s after its event")
        let none = detector.step(wall: wall + Self.second, elapsed: 71 * Self.second)
        #expect(none == nil, "the new offset is the reference")
    }

    @Test func shiftingAnEmptyBookChangesNothing() {
        var book = SessionBook()
        #expect(book.shiftDeadlines(by: Self.hour) == 0)
        #expect(book.nextDeadline == nil)
    }
}
