import Testing

@testable import NotifyStore

/// The UnifiedPush tables: the migration from version 4, registrations and
/// held messages across a reopen (bodies byte for byte), a registration's
/// removal taking its messages with it, a registration made again in the
/// same batch, a clock step, and what the tables refuse.
@Suite struct PushStoreTests {
    let registration = StoredPushRegistration(
        token: "2f1c9a70-5e1b-4a57-9d0e-6f1f0f6a1b2c", app: "org.example.Chat",
        serverKey: (0..<32).map { UInt8($0 * 7) }, description: "Chat", vapid: nil, connector: 2,
        endpoint: "https://push.example/upAbCdEfGhIjKl?up=1", endpointExpiry: 1_800_000_000_000_000, messages: 3,
        lastMessage: 42)
    let everyByte = (0...255).map { UInt8($0) }

    func message(_ id: UInt64, token: String? = nil, body: [UInt8] = [1]) -> StoredPushMessage {
        StoredPushMessage(id: id, token: token ?? registration.token, serverID: "s\(id)", body: body, received: Int64(id) * 10)
    }

    /// Every held message, as the daemon reads them: without bodies at
    /// start-up, each body on its own when it is delivered.
    func held(in store: StateStore) throws -> [StoredPushMessage] {
        try store.loadHeldPushMessages().map { row in
            let body = try #require(try store.loadPushMessageBody(id: row.id))
            #expect(body.count == row.size)
            return StoredPushMessage(id: row.id, token: row.token, serverID: row.serverID, body: body, received: row.received)
        }
    }

    @Test func aBodyIsReadBackByIDAndNilOnceReleased() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stagePushRegistration(registration)
            store.staged.stagePushMessage(message(1, body: everyByte))
            try store.commit()
            #expect(try store.loadHeldPushMessages() == [
                StoredHeldPushMessage(id: 1, token: registration.token, serverID: "s1", size: 256, received: 10)
            ])
            #expect(try store.loadPushMessageBody(id: 1) == everyByte)
            #expect(try store.loadPushMessageBody(id: 2) == nil)
            store.staged.stagePushMessageRemoval(id: 1)
            try store.commit()
            #expect(try store.loadPushMessageBody(id: 1) == nil)
        }
    }

    @Test func aVersion4DatabaseGainsThePushTablesAndKeepsItsFetches() throws {
        try withTemporaryDirectory { root in
            do {
                let database = try SQLiteDatabase(path: "\(root)/\(StateStore.databaseFileName)")
                try StateSchema.migrate(database, steps: Array(StateSchema.migrations.prefix(4)))
                try database.execute("INSERT INTO fetch_schedules VALUES ('org.example.Feeds', 60, 1, NULL, NULL, 0, 0, 0)")
            }
            let store = try StateStore(directory: root)
            #expect(try store.database.userVersion == StateSchema.latestVersion)
            #expect(try store.loadFetchSchedules().map(\.app) == ["org.example.Feeds"])
            #expect(try store.loadPushRegistrations() == [])
            #expect(try held(in: store) == [])
        }
    }

    @Test func registrationsAndHeldMessagesSurviveAReopenByteForByte() throws {
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                var first = registration
                first.endpoint = nil
                store.staged.stagePushRegistration(first)
                store.staged.stagePushRegistration(registration)  // replaces the first in the batch
                store.staged.stagePushMessage(message(1, body: everyByte))
                store.staged.stagePushMessage(message(2, body: Array(repeating: 0, count: 4_096)))
                store.staged.stagePushMessage(message(3))
                store.staged.stagePushMessageRemoval(id: 3)
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            #expect(try reopened.loadPushRegistrations() == [registration])
            #expect(try held(in: reopened) == [message(1, body: everyByte), message(2, body: Array(repeating: 0, count: 4_096))])
        }
    }

    @Test func removingARegistrationRemovesItsMessagesAndASecondOneStartsEmpty() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            var other = registration
            other.token = "other"
            other.serverKey = Array(repeating: 9, count: 32)
            store.staged.stagePushRegistration(registration)
            store.staged.stagePushRegistration(other)
            store.staged.stagePushMessage(message(1))
            store.staged.stagePushMessage(message(2, token: "other"))
            try store.commit()
            // Unregistered and registered again in one batch: the old messages go, the registration stays.
            store.staged.stagePushRegistrationRemoval(token: registration.token)
            store.staged.stagePushRegistration(registration)
            try store.commit()
            #expect(try store.loadPushRegistrations().map(\.token) == ["2f1c9a70-5e1b-4a57-9d0e-6f1f0f6a1b2c", "other"])
            #expect(try held(in: store) == [message(2, token: "other")])
            store.staged.stagePushRegistrationRemoval(token: "other")
            try store.commit()
            #expect(try held(in: store) == [])
        }
    }

    @Test func aClockStepMovesTheHeldMessagesReceipts() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stagePushRegistration(registration)
            store.staged.stagePushMessage(message(1))
            try store.commit()
            store.staged.stageDeadlineShift(by: -7)
            try store.commit()
            #expect(try held(in: store).map { $0.received } == [3])
            #expect(try store.loadPushRegistrations().first?.lastMessage == 42, "when a message came is not moved")
            #expect(try store.loadPushRegistrations().first?.endpointExpiry == 1_800_000_000_000_000 - 7)
        }
    }

    @Test(arguments: [0, 4_097])
    func aBodyOfNoBytesOrOver4096IsRefusedAndNothingOfTheBatchIsStored(_ size: Int) throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stagePushRegistration(registration)
            store.staged.stagePushMessage(message(1, body: Array(repeating: 7, count: size)))
            #expect(throws: StoreError.self) { try store.commit() }
            #expect(try store.loadPushRegistrations() == [])
            #expect(try held(in: store) == [])
        }
    }

    @Test func theServerIsOneRowSetReplacedAndRemoved() throws {
        try withTemporaryDirectory { root in
            let xmpp = StoredPushServer(
                kind: "xmpp", address: "alice@example.org", host: "127.0.0.1", port: 5222, caFile: "/etc/ca.pem",
                password: "hunter2")
            do {
                let store = try StateStore(directory: root)
                #expect(try store.loadPushServer() == nil)
                store.staged.stagePushServer(xmpp)
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            #expect(try reopened.loadPushServer() == xmpp)
            let bare = StoredPushServer(kind: "xmpp", address: "bob@example.org", host: nil, port: nil, caFile: nil, password: "x")
            reopened.staged.stagePushServer(bare)
            try reopened.commit()
            #expect(try reopened.loadPushServer() == bare)
            reopened.staged.stagePushServer(nil)
            try reopened.commit()
            #expect(try reopened.loadPushServer() == nil)
            reopened.staged.stagePushServer(StoredPushServer(kind: "gopher", address: "x", host: nil, port: nil, caFile: nil, password: nil))
            #expect(throws: StoreError.self) { try reopened.commit() }
        }
    }
}
