import DBus
import Foundation
import NotifyTesting
import NotifyCore
import NotifyStore
import Testing

@testable import NotifyDaemon

/// The committer stores a batch before anything is said of it: a failed
/// commit carries out no effect and is logged with what it refused (a
/// worker signal has nobody else to tell). And a successful one keeps the
/// WAL small.
@Suite struct CommitterTests {
    /// The effects carried out, in order.
    final class Effects {
        var carried: [NotifydEffect] = []
        func carryOut(_ effect: NotifydEffect) { carried.append(effect) }
    }

    static func withState(_ body: (Committer, StateStore, LogLines) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("notifyd-durable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = LogLines()
        let store = try StateStore(directory: directory.path)
        let committer = try Committer(store: store, owner: try EventLoop(), logger: capture.logger)
        defer { committer.stopWriter() }
        try body(committer, store, capture)
    }

    /// Records an event and hands its outcome to the committer.
    static func record(_ session: String, app: String, in committer: Committer) throws -> RecordedEvent {
        let session = try SessionID(session)
        let app = try AppID(app)
        return try committer.apply { (current) throws(NotifydError) in
            try current.recordEvent(WorkerEvent(), session: session, app: app, at: 1_000)
        }.recorded
    }

    @Test func aRefusedCommitNamesTheSessionsAndAppsItRefused() throws {
        try Self.withState { committer, _, capture in
            var first: RecordedEvent?
            for index in 0..<7 {
                let recorded = try Self.record("dl-\(index)", app: "org.example.App\(index % 2)", in: committer)
                first = first ?? recorded
            }
            // The same handler twice: the commit fails (a constraint), as a full disk would make it.
            let duplicate = try #require(first)
            committer.apply { _ in Decision(NotifydOutcome(writes: [.event(duplicate)])) }
            let effects = Effects()
            committer.drain(carryingOut: effects.carryOut)
            #expect(effects.carried.isEmpty, "nothing is said of a batch that is not stored")
            let line = try #require(capture.lines.first { $0.contains("cannot save state") })
            #expect(line.contains("rolling back 0 call(s); refused 8 event report(s)"), "\(line)")
            for index in 0..<5 {
                #expect(line.contains("session 'dl-\(index)' of org.example.App\(index % 2)"), "\(line)")
            }
            #expect(!line.contains("dl-6"), "at most five are named: \(line)")
            #expect(line.contains(", …"), "\(line)")
            #expect(committer.current.sessions.pendingCount == 0, "memory went back to what the database holds")
        }
    }

    /// What only memory holds (tasks, popups, docks) is what it was
    /// before the failed batch: a task begun before it still runs, and
    /// the failed batch's popup and dock count are gone with it.
    @Test func aFailedCommitPutsMemoryOnlyStateBackAsBeforeTheBatch() throws {
        try Self.withState { committer, _, _ in
            let app = try AppID("org.example.App")
            let task = try committer.apply { (current) throws(NotifydError) in
                try current.beginTask(app, name: "upload", owner: ":1.5", seconds: 180, at: 1_000)
            }
            let first = try Self.record("dl-0", app: "org.example.App", in: committer)
            committer.drain { _ in }
            let popupsBefore = committer.current.popups
            let docksBefore = committer.current.docks
            _ = try Self.record("dl-1", app: "org.example.App", in: committer)
            #expect(committer.current.popups != popupsBefore, "the batch decided a popup")
            committer.apply { _ in Decision(NotifydOutcome(writes: [.event(first)])) }
            committer.drain { _ in }
            #expect(committer.current.tasks.tasks[task.id] != nil, "the task begun before the batch still runs")
            #expect(committer.current.popups == popupsBefore)
            #expect(committer.current.docks == docksBefore)
            #expect(committer.current.badges[app] == 1)
        }
    }

    /// Reads are answered from the state as last committed: while a batch
    /// is with the writer thread, and until the bus thread hears that it is
    /// on disk, ``Committer/committed`` does not have it; decisions
    /// (``Committer/current``) go on on top of it.
    @Test func readsSeeTheCommittedStateWhileABatchIsOnItsWayToDisk() throws {
        try Self.withState { committer, store, _ in
            let app = try AppID("org.example.App")
            _ = try Self.record("dl-0", app: app.rawValue, in: committer)
            committer.commit { _ in }  // sealed and handed over; nothing waits
            _ = try Self.record("dl-1", app: app.rawValue, in: committer)
            #expect(committer.current.badges[app] == 2)
            #expect(committer.committed.badges[app] == 0)
            #expect(committer.committed.sessions.sessionCount == 0)
            committer.drain { _ in }
            #expect(committer.committed.badges[app] == 2)
            #expect(committer.committed == committer.current)
            #expect(try store.loadSessions().map(\.id).sorted() == ["dl-0", "dl-1"])
        }
    }

    /// Nothing reaches the disk that was decided on a state that never
    /// did: when a commit fails, the batch decided on top of it (filling
    /// while it synced) is dropped with it, and both are logged; the next
    /// batch is committed as usual.
    @Test func aBatchDecidedOnTopOfAFailedOneFailsWithIt() throws {
        try Self.withState { committer, store, capture in
            let app = try AppID("org.example.App")
            let first = try Self.record("dl-0", app: app.rawValue, in: committer)
            committer.drain { _ in }
            // The same handler again: the commit fails (a constraint), as a full disk would make it.
            committer.apply { _ in Decision(NotifydOutcome(writes: [.event(first)])) }
            committer.commit { _ in }
            _ = try Self.record("dl-1", app: app.rawValue, in: committer)
            let effects = Effects()
            committer.drain(carryingOut: effects.carryOut)
            #expect(effects.carried.isEmpty, "nothing is said of either batch")
            let line = try #require(capture.lines.first { $0.contains("cannot save state") })
            #expect(line.contains("decided on top of it; refused 1 event report(s) (session 'dl-1' of org.example.App)"), "\(line)")
            #expect(committer.current.sessions.session(try SessionID("dl-1")) == nil)
            #expect(committer.current.badges[app] == 1)
            #expect(committer.current == committer.committed)
            _ = try Self.record("dl-2", app: app.rawValue, in: committer)
            committer.drain { _ in }
            #expect(try store.loadSessions().map(\.id).sorted() == ["dl-0", "dl-2"])
            #expect(committer.committed.badges[app] == 2)
        }
    }

    @Test func theLineStaysShortWhateverTheBatch() throws {
        try Self.withState { committer, _, capture in
            var first: RecordedEvent?
            for index in 0..<500 {
                let session = String(repeating: "s", count: 250) + "\(index)"
                let recorded = try Self.record(session, app: "org.example.Long", in: committer)
                first = first ?? recorded
            }
            let duplicate = try #require(first)
            committer.apply { _ in Decision(NotifydOutcome(writes: [.event(duplicate)])) }
            committer.drain { _ in }
            let line = try #require(capture.lines.first { $0.contains("cannot save state") })
            #expect(line.contains("refused 501 event report(s)"))
            // Unbounded, the names alone would take 130,000 characters.
            #expect(line.count < 2_000, "\(line.count) characters: \(line)")
        }
    }

    @Test func commitsCheckpointTheWAL() throws {
        try Self.withState { committer, store, capture in
            let effects = Effects()
            for index in 0..<300 {
                _ = try Self.record("wal-\(index)", app: "org.example.App", in: committer)
                committer.drain(carryingOut: effects.carryOut)
                #expect(store.walFrameCount < store.walCheckpointFrames + 16)
            }
            #expect(store.walFileSize <= StateStore.walBytes(frames: store.walCheckpointFrames + 16, pageSize: 4096))
            #expect(!capture.lines.contains { $0.contains("cannot") }, "\(capture.lines)")
            // Each commit carried out its event's effects, in order: the
            // badge, the event, its popup (waiting for a server: the first
            // asks D-Bus to start one), and the dock's count once per batch
            // (shown the first time, then sent).
            let first = Array(effects.carried.prefix(4))
            #expect(first == [
                .badgeChanged(BadgeChange(app: try AppID("org.example.App"), old: 0, new: 1)), first[1],
                .desktop(.startServer), .dock(.show(try AppID("org.example.App"), DockEntry(count: 1))),
            ], "\(first)")
            guard case .eventRecorded = first[1] else {
                Issue.record("unexpected order: \(first)")
                return
            }
            #expect(effects.carried.filter { if case .eventRecorded = $0 { true } else { false } }.count == 300)
            #expect(effects.carried.filter { if case .dock(.send(_, let entry)) = $0 { entry.count > 0 } else { false } }.count == 299)
        }
    }
}
