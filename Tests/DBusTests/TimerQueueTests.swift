import Testing

@testable import DBus

@Suite struct TimerQueueTests {
    /// Pops every timer due at `now`, running each; returns their labels in order.
    private func due(_ queue: inout TimerQueue, at now: UInt64, log: Log) -> [String] {
        while let handler = queue.popDue(now: now) { handler() }
        defer { log.entries.removeAll() }
        return log.entries
    }

    final class Log { var entries: [String] = [] }

    @Test func timersComeDueInDeadlineOrderThenInTheOrderScheduled() {
        var queue = TimerQueue()
        let log = Log()
        for (deadline, label) in [(30, "c"), (10, "a"), (20, "b1"), (20, "b2"), (40, "d")] {
            _ = queue.schedule(at: UInt64(deadline)) { log.entries.append(label) }
        }
        #expect(queue.nextDeadline() == 10)
        #expect(due(&queue, at: 5, log: log) == [])
        #expect(due(&queue, at: 20, log: log) == ["a", "b1", "b2"])
        #expect(queue.nextDeadline() == 30)
        #expect(due(&queue, at: 100, log: log) == ["c", "d"])
        #expect(queue.nextDeadline() == nil)
        #expect(queue.count == 0)
    }

    @Test func aCancelledTimerNeverComesDue() {
        var queue = TimerQueue()
        let log = Log()
        let first = queue.schedule(at: 10) { log.entries.append("first") }
        _ = queue.schedule(at: 20) { log.entries.append("second") }
        queue.cancel(first)
        queue.cancel(first)
        #expect(queue.count == 1)
        #expect(queue.nextDeadline() == 20)
        #expect(due(&queue, at: 100, log: log) == ["second"])
    }

    /// libdbus adds and removes call timeouts all the time: cancelled
    /// entries must not pile up.
    @Test func cancelledEntriesDoNotPileUp() {
        var queue = TimerQueue()
        let keep = queue.schedule(at: 1_000_000) {}
        for round in 0..<10_000 {
            let id = queue.schedule(at: UInt64(round)) {}
            queue.cancel(id)
        }
        #expect(queue.count == 1)
        #expect(queue.storedCount <= 130)
        #expect(queue.nextDeadline() == 1_000_000)
        queue.cancel(keep)
        #expect(queue.nextDeadline() == nil)
    }
}
