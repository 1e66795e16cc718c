import NotifyCore
import Testing

/// Completions and expiries keep the finished sessions within
/// ``SessionBook/finishedSessionsKept``, as events do: completing 100,000
/// sessions must leave 1,000 in memory and on disk, not 100,000.
@Suite struct FinishedSessionBoundTests {
    let app = try! AppID("org.example.Downloads")
    static let kept = SessionBook.finishedSessionsKept

    func id(_ name: String) -> SessionID { try! SessionID(name) }

    /// The forgotten sessions an outcome removes from the store.
    func forgotten(_ outcome: NotifydOutcome) -> [SessionID] {
        outcome.writes.flatMap { write -> [SessionID] in
            guard case .invoked(_, _, let forgotten) = write else { return [] }
            return forgotten
        }
    }

    @Test func completionsAndExpiriesForgetTheOldestButSpareWhatJustFinished() throws {
        var state = NotifydState()
        // Three sessions whose handlers wait, with the oldest last events.
        for index in 0..<3 {
            _ = try state.recordEvent(WorkerEvent(timeout: 10), session: id("waiting-\(index)"), app: app, at: Microseconds(index))
        }
        // Then `kept` sessions that finish.
        for index in 0..<Self.kept {
            let at = Microseconds(100 + index)
            _ = try state.recordEvent(WorkerEvent(timeout: 86_400), session: id("done-\(index)"), app: app, at: at)
            _ = try state.completeSession(id("done-\(index)"), result: .completed, at: at)
        }
        #expect(state.sessions.allSessions.count == Self.kept + 3)

        // Completing the oldest session spares it (it just finished) and
        // forgets the oldest other one.
        let completion = try state.completeSession(id("waiting-0"), result: .completed, at: 5_000)
        #expect(forgotten(completion.outcome) == [id("done-0")])
        #expect(state.sessions.session(id("waiting-0"))?.lastResult == .completed)
        #expect(state.sessions.allSessions.count == Self.kept + 2)

        // The other two expire together: both spared, and the two oldest
        // others forgotten, the first spared one among them (only the
        // sessions that just finished are spared).
        let expiry = state.expireHandlers(at: 10 * 1_000_000 + 10)
        #expect(forgotten(expiry.outcome) == [id("waiting-0"), id("done-1")])
        #expect(state.sessions.session(id("waiting-1"))?.lastResult == .expired)
        #expect(state.sessions.session(id("waiting-2"))?.lastResult == .expired)
        #expect(state.sessions.allSessions.count == Self.kept)
    }
}
