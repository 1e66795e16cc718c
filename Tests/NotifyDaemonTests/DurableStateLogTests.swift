import Foundation
import Logging
import NotifyCore
import NotifyStore
import Testing

@testable import NotifyDaemon

/// A failed commit is logged with what it refused: a worker signal has
/// nobody else to tell. And a successful one keeps the WAL small.
@Suite struct DurableStateLogTests {
    /// Every message logged, in order.
    final class Capture: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []

        var messages: [String] { lock.withLock { lines } }

        func append(_ line: String) { lock.withLock { lines.append(line) } }

        var logger: Logger {
            Logger(label: "notifyd.tests") { _ in Handler(capture: self) }
        }

        struct Handler: LogHandler {
            let capture: Capture
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace

            func log(event: LogEvent) { capture.append("\(event.level): \(event.message)") }

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
        }
    }

    static func withState(_ body: (DurableState, StateStore, Capture) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("notifyd-durable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = Capture()
        let store = try StateStore(directory: directory.path)
        try body(try DurableState(store: store, logger: capture.logger), store, capture)
    }

    static func record(_ session: String, app: String, in state: DurableState) throws -> RecordedEvent {
        let session = try SessionID(session)
        let app = try AppID(app)
        return try state.mutate { (current) throws(NotifydError) in
            try current.sessions.record(WorkerEvent(), session: session, app: app, at: 1_000)
        }
    }

    @Test func aRefusedCommitNamesTheSessionsAndAppsItRefused() throws {
        try Self.withState { state, _, capture in
            var first: RecordedEvent?
            for index in 0..<7 {
                let recorded = try Self.record("dl-\(index)", app: "org.example.App\(index % 2)", in: state)
                state.stage(recorded)
                first = first ?? recorded
            }
            // The same handler twice: the commit fails (a constraint), as a full disk would make it.
            state.stage(try #require(first))
            state.commit()
            let line = try #require(capture.messages.first { $0.contains("cannot save state") })
            #expect(line.contains("rolling back 0 call(s); refused 8 event report(s)"), "\(line)")
            for index in 0..<5 {
                #expect(line.contains("session 'dl-\(index)' of org.example.App\(index % 2)"), "\(line)")
            }
            #expect(!line.contains("dl-6"), "at most five are named: \(line)")
            #expect(line.contains(", …"), "\(line)")
            #expect(state.current.sessions.pendingCount == 0, "memory went back to what the database holds")
        }
    }

    @Test func theLineStaysShortWhateverTheBatch() throws {
        try Self.withState { state, _, capture in
            var first: RecordedEvent?
            for index in 0..<500 {
                let session = String(repeating: "s", count: 250) + "\(index)"
                let recorded = try Self.record(session, app: "org.example.Long", in: state)
                state.stage(recorded)
                first = first ?? recorded
            }
            state.stage(try #require(first))
            state.commit()
            let line = try #require(capture.messages.first { $0.contains("cannot save state") })
            #expect(line.contains("refused 501 event report(s)"))
            // Unbounded, the names alone would take 130,000 characters.
            #expect(line.count < 2_000, "\(line.count) characters: \(line)")
        }
    }

    @Test func commitsCheckpointTheWAL() throws {
        try Self.withState { state, store, capture in
            for index in 0..<300 {
                state.stage(try Self.record("wal-\(index)", app: "org.example.App", in: state))
                state.commit()
                #expect(store.walFrameCount < store.walCheckpointFrames + 16)
            }
            #expect(store.walFileSize <= StateStore.walBytes(frames: store.walCheckpointFrames + 16, pageSize: 4096))
            #expect(!capture.messages.contains { $0.contains("cannot") }, "\(capture.messages)")
        }
    }
}
