import Testing

@testable import NotifyStore

/// The wall clock was set: every stored deadline moves by the step, those
/// staged before the shift in the same batch included, those after not.
@Suite struct DeadlineShiftTests {
    @Test func aShiftMovesTheDeadlinesStoredBeforeIt() throws {
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                store.staged.stageSession(StoredSession(id: "s", app: "a", events: 3, lastEvent: 5, inProgress: false))
                store.staged.stageHandler(StoredHandler(id: 1, session: "s", app: "a", storedAt: 5, deadline: 1_000))
                try store.commit()
                store.staged.stageHandler(StoredHandler(id: 2, session: "s", app: "a", storedAt: 6, deadline: 2_000))
                store.staged.stageDeadlineShift(by: -3_600_000_000)
                store.staged.stageHandler(StoredHandler(id: 3, session: "s", app: "a", storedAt: 7, deadline: 3_000))
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            let deadlines = Dictionary(uniqueKeysWithValues: try reopened.loadHandlers().map { ($0.id, $0.deadline) })
            #expect(deadlines == [1: 1_000 - 3_600_000_000, 2: 2_000 - 3_600_000_000, 3: 3_000])
            #expect(try reopened.loadHandlers().first { $0.id == 1 }?.storedAt == 5, "when it was stored stays")
        }
    }
}
