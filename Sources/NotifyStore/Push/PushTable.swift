/// A UnifiedPush registration, as stored (SPEC "Remote notifications").
public struct StoredPushRegistration: Sendable, Hashable {
    public var token: String
    public var app: String
    public var description: String
    public var vapid: String?
    /// 1 or 2: the connector interface notifyd calls.
    public var connector: Int
    public var endpoint: String?
    public var messages: UInt32
    /// Unix µs of the last message delivered.
    public var lastMessage: Int64?

    public init(
        token: String, app: String, description: String, vapid: String?, connector: Int, endpoint: String?,
        messages: UInt32, lastMessage: Int64?
    ) {
        self.token = token
        self.app = app
        self.description = description
        self.vapid = vapid
        self.connector = connector
        self.endpoint = endpoint
        self.messages = messages
        self.lastMessage = lastMessage
    }
}

/// A push message held for its registration until delivered, as stored.
public struct StoredPushMessage: Sendable, Hashable {
    public var id: UInt64
    public var token: String
    public var serverID: String
    public var body: [UInt8]
    /// Unix µs; moved when the wall clock is set.
    public var received: Int64

    public init(id: UInt64, token: String, serverID: String, body: [UInt8], received: Int64) {
        self.id = id
        self.token = token
        self.serverID = serverID
        self.body = body
        self.received = received
    }
}

/// The `push_registrations` and `push_messages` tables. Removing a
/// registration removes the messages held for it.
struct PushTable {
    private let upsertRegistration: SQLiteStatement
    private let deleteRegistration: SQLiteStatement
    private let deleteMessagesOfToken: SQLiteStatement
    private let insertMessage: SQLiteStatement
    private let deleteMessage: SQLiteStatement
    private let shiftMessages: SQLiteStatement

    init(database: SQLiteDatabase) throws {
        upsertRegistration = try database.prepare("""
            INSERT INTO push_registrations (token, app_id, description, vapid, connector, endpoint, messages,
                last_message_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            ON CONFLICT (token) DO UPDATE SET app_id = excluded.app_id, description = excluded.description,
                vapid = excluded.vapid, connector = excluded.connector, endpoint = excluded.endpoint,
                messages = excluded.messages, last_message_us = excluded.last_message_us
            """)
        deleteRegistration = try database.prepare("DELETE FROM push_registrations WHERE token = ?1")
        deleteMessagesOfToken = try database.prepare("DELETE FROM push_messages WHERE token = ?1")
        insertMessage = try database.prepare(
            "INSERT INTO push_messages (id, token, server_id, body, received_us) VALUES (?1, ?2, ?3, ?4, ?5)")
        deleteMessage = try database.prepare("DELETE FROM push_messages WHERE id = ?1")
        shiftMessages = try database.prepare("UPDATE push_messages SET received_us = received_us + ?1")
    }

    func write(_ registration: StoredPushRegistration) throws {
        let statement = upsertRegistration
        statement.reset()
        defer { statement.reset() }
        try statement.bind(registration.token, at: 1)
        try statement.bind(registration.app, at: 2)
        try statement.bind(registration.description, at: 3)
        if let vapid = registration.vapid { try statement.bind(vapid, at: 4) } else { try statement.bindNull(at: 4) }
        try statement.bind(Int64(registration.connector), at: 5)
        if let endpoint = registration.endpoint {
            try statement.bind(endpoint, at: 6)
        } else {
            try statement.bindNull(at: 6)
        }
        try statement.bind(Int64(registration.messages), at: 7)
        if let last = registration.lastMessage { try statement.bind(last, at: 8) } else { try statement.bindNull(at: 8) }
        _ = try statement.step()
    }

    /// Removes a registration and every message held for it.
    func remove(token: String) throws {
        for statement in [deleteMessagesOfToken, deleteRegistration] {
            statement.reset()
            defer { statement.reset() }
            try statement.bind(token, at: 1)
            _ = try statement.step()
        }
    }

    func insert(_ message: StoredPushMessage) throws {
        insertMessage.reset()
        defer { insertMessage.reset() }
        try insertMessage.bind(bitPattern: message.id, at: 1)
        try insertMessage.bind(message.token, at: 2)
        try insertMessage.bind(message.serverID, at: 3)
        try insertMessage.bind(bytes: message.body, at: 4)
        try insertMessage.bind(message.received, at: 5)
        _ = try insertMessage.step()
    }

    func removeMessage(id: UInt64) throws {
        deleteMessage.reset()
        defer { deleteMessage.reset() }
        try deleteMessage.bind(bitPattern: id, at: 1)
        _ = try deleteMessage.step()
    }

    /// Moves every held message's receipt by `delta` µs (the wall clock was set).
    func shift(by delta: Int64) throws {
        shiftMessages.reset()
        defer { shiftMessages.reset() }
        try shiftMessages.bind(delta, at: 1)
        _ = try shiftMessages.step()
    }

    static func loadRegistrations(from database: SQLiteDatabase) throws -> [StoredPushRegistration] {
        let select = try database.prepare("""
            SELECT token, app_id, description, vapid, connector, endpoint, messages, last_message_us
            FROM push_registrations ORDER BY token
            """)
        var rows: [StoredPushRegistration] = []
        while try select.step() {
            guard let token = select.string(at: 0), let app = select.string(at: 1),
                let description = select.string(at: 2), let messages = UInt32(exactly: select.int64(at: 6))
            else { continue }
            rows.append(
                StoredPushRegistration(
                    token: token, app: app, description: description, vapid: select.string(at: 3),
                    connector: Int(select.int64(at: 4)), endpoint: select.string(at: 5), messages: messages,
                    lastMessage: select.isNull(at: 7) ? nil : select.int64(at: 7)))
        }
        return rows
    }

    static func loadMessages(from database: SQLiteDatabase) throws -> [StoredPushMessage] {
        let select = try database.prepare(
            "SELECT id, token, server_id, body, received_us FROM push_messages ORDER BY id")
        var rows: [StoredPushMessage] = []
        while try select.step() {
            guard let id = select.uint64(bitPatternAt: 0), id > 0, let token = select.string(at: 1),
                let serverID = select.string(at: 2), let body = select.bytes(at: 3)
            else { continue }
            rows.append(StoredPushMessage(id: id, token: token, serverID: serverID, body: body, received: select.int64(at: 4)))
        }
        return rows
    }
}

extension StateStore {
    /// Every stored push registration, by token.
    public func loadPushRegistrations() throws -> [StoredPushRegistration] {
        try PushTable.loadRegistrations(from: database)
    }

    /// Every push message held, by ID (oldest first).
    public func loadPushMessages() throws -> [StoredPushMessage] {
        try PushTable.loadMessages(from: database)
    }
}

extension StateWrites {
    // MARK: UnifiedPush

    /// Stages a registration as it is now (a later one of the same token
    /// replaces it). No I/O.
    public mutating func stagePushRegistration(_ registration: StoredPushRegistration) {
        stage(.pushRegistration(registration))
    }

    /// Stages the removal of a registration and of every message held for
    /// it, applied after what was staged before it. No I/O.
    public mutating func stagePushRegistrationRemoval(token: String) {
        stage(.pushRegistrationRemoval(token: token))
    }

    /// Stages the insert of a message held for its registration. No I/O.
    public mutating func stagePushMessage(_ message: StoredPushMessage) {
        stage(.pushMessage(message))
    }

    /// Stages the removal of a held message (delivered, or dropped). No I/O.
    public mutating func stagePushMessageRemoval(id: UInt64) {
        stage(.pushMessageRemoval(id: id))
    }
}
