/// The `push_registrations`, `push_messages` and `push_server` tables. Removing a
/// registration removes the messages held for it.
struct PushTable {
    private let upsertRegistration: SQLiteStatement
    private let deleteRegistration: SQLiteStatement
    private let deleteMessagesOfToken: SQLiteStatement
    private let insertMessage: SQLiteStatement
    private let deleteMessage: SQLiteStatement
    private let shiftMessages: SQLiteStatement
    private let shiftExpiries: SQLiteStatement
    private let replaceServer: SQLiteStatement
    private let deleteServer: SQLiteStatement
    private let updateCursor: SQLiteStatement

    init(database: SQLiteDatabase) throws {
        upsertRegistration = try database.prepare("""
            INSERT INTO push_registrations (token, app_id, description, vapid, connector, endpoint, messages,
                last_message_us, server_key, endpoint_expiry_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT (token) DO UPDATE SET app_id = excluded.app_id, description = excluded.description,
                vapid = excluded.vapid, connector = excluded.connector, endpoint = excluded.endpoint,
                messages = excluded.messages, last_message_us = excluded.last_message_us,
                server_key = excluded.server_key, endpoint_expiry_us = excluded.endpoint_expiry_us
            """)
        replaceServer = try database.prepare("""
            INSERT OR REPLACE INTO push_server (id, kind, address, host, port, ca_file, password, password_in_secret_service)
            VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """)
        deleteServer = try database.prepare("DELETE FROM push_server")
        updateCursor = try database.prepare("UPDATE push_server SET cursor = ?1 WHERE id = 1")
        deleteRegistration = try database.prepare("DELETE FROM push_registrations WHERE token = ?1")
        deleteMessagesOfToken = try database.prepare("DELETE FROM push_messages WHERE token = ?1")
        insertMessage = try database.prepare(
            "INSERT INTO push_messages (id, token, server_id, body, received_us) VALUES (?1, ?2, ?3, ?4, ?5)")
        deleteMessage = try database.prepare("DELETE FROM push_messages WHERE id = ?1")
        shiftMessages = try database.prepare("UPDATE push_messages SET received_us = received_us + ?1")
        shiftExpiries = try database.prepare(
            "UPDATE push_registrations SET endpoint_expiry_us = endpoint_expiry_us + ?1 WHERE endpoint_expiry_us IS NOT NULL")
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
        try statement.bind(bytes: registration.serverKey, at: 9)
        if let expiry = registration.endpointExpiry { try statement.bind(expiry, at: 10) } else { try statement.bindNull(at: 10) }
        _ = try statement.step()
    }

    /// Sets the server's cursor (nothing without a server).
    func setCursor(_ cursor: String) throws {
        updateCursor.reset()
        defer { updateCursor.reset() }
        try updateCursor.bind(cursor, at: 1)
        _ = try updateCursor.step()
    }

    /// Sets the one row of the push server, or removes it (nil).
    func setServer(_ server: StoredPushServer?) throws {
        guard let server else {
            deleteServer.reset()
            defer { deleteServer.reset() }
            _ = try deleteServer.step()
            return
        }
        let statement = replaceServer
        statement.reset()
        defer { statement.reset() }
        try statement.bind(server.kind, at: 1)
        try statement.bind(server.address, at: 2)
        let optionals: [(String?, Int)] = [(server.host, 3), (server.caFile, 5), (server.password, 6)]
        for (value, index) in optionals {
            if let value { try statement.bind(value, at: index) } else { try statement.bindNull(at: index) }
        }
        if let port = server.port { try statement.bind(Int64(port), at: 4) } else { try statement.bindNull(at: 4) }
        try statement.bind(Int64(server.passwordInSecretService ? 1 : 0), at: 7)
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
        for statement in [shiftMessages, shiftExpiries] {
            statement.reset()
            defer { statement.reset() }
            try statement.bind(delta, at: 1)
            _ = try statement.step()
        }
    }

    static func loadRegistrations(from database: SQLiteDatabase) throws -> [StoredPushRegistration] {
        let select = try database.prepare("""
            SELECT token, app_id, description, vapid, connector, endpoint, messages, last_message_us, server_key,
                endpoint_expiry_us
            FROM push_registrations ORDER BY token
            """)
        var rows: [StoredPushRegistration] = []
        while try select.step() {
            guard let token = select.string(at: 0), let app = select.string(at: 1),
                let description = select.string(at: 2), let messages = UInt32(exactly: select.int64(at: 6)),
                let serverKey = select.bytes(at: 8)
            else { continue }
            rows.append(
                StoredPushRegistration(
                    token: token, app: app, serverKey: serverKey, description: description, vapid: select.string(at: 3),
                    connector: Int(select.int64(at: 4)), endpoint: select.string(at: 5),
                    endpointExpiry: select.isNull(at: 9) ? nil : select.int64(at: 9), messages: messages,
                    lastMessage: select.isNull(at: 7) ? nil : select.int64(at: 7)))
        }
        return rows
    }

    static func loadServer(from database: SQLiteDatabase) throws -> StoredPushServer? {
        let select = try database.prepare(
            "SELECT kind, address, host, port, ca_file, password, password_in_secret_service, cursor FROM push_server WHERE id = 1")
        guard try select.step(), let kind = select.string(at: 0), let address = select.string(at: 1) else { return nil }
        var server = StoredPushServer(
            kind: kind, address: address, host: select.string(at: 2),
            port: select.isNull(at: 3) ? nil : UInt16(exactly: select.int64(at: 3)), caFile: select.string(at: 4),
            password: select.string(at: 5), passwordInSecretService: select.int64(at: 6) != 0)
        server.cursor = select.string(at: 7)
        return server
    }
}
