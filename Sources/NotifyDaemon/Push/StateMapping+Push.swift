import Logging
import NotifyCore
import NotifyStore

/// Conversions between the push book and the store's rows.
extension StateMapping {
    static func row(_ registration: PushRegistration) -> StoredPushRegistration {
        StoredPushRegistration(
            token: registration.token.rawValue, app: registration.app.rawValue, serverKey: registration.serverKey.bytes,
            description: registration.description, vapid: registration.vapid,
            connector: registration.connector.rawValue, endpoint: registration.endpoint,
            endpointExpiry: registration.endpointExpiry, messages: registration.messages,
            lastMessage: registration.lastMessage)
    }

    static func row(_ server: PushServerSettings) -> StoredPushServer {
        StoredPushServer(
            kind: server.kind.rawValue, address: server.address, host: server.host, port: server.port,
            caFile: server.caFile, password: nil,  // never in the state database (SPEC)
            passwordInSecretService: server.passwordInSecretService)
    }

    /// The push server as stored; nil (with a warning) when the row no
    /// longer validates.
    static func pushServer(from row: StoredPushServer, logger: Logger) -> PushServerSettings? {
        do throws(NotifydError) {
            guard let kind = PushServerSettings.Kind(rawValue: row.kind) else {
                throw NotifydError(.invalidArgs, "unknown kind '\(row.kind)'")
            }
            return try PushServerSettings(
                kind: kind, address: row.address, host: row.host, port: row.port, caFile: row.caFile,
                password: row.password.map { (text) throws(NotifydError) in try PushSecret(text) },
                // A password in the row is one an earlier build stored there:
                // used as it is, and gone from the row when the server is set again.
                passwordPlace: row.passwordInSecretService ? .secretService : (kind == .xmpp ? .file : .memory))
        } catch {
            logger.warning("the stored push server is not valid (\(error.message)); no push server is set")
            return nil
        }
    }

    static func row(_ message: PushMessage) -> StoredPushMessage {
        StoredPushMessage(
            id: message.id, token: message.token.rawValue, serverID: message.serverID, body: message.body,
            received: message.received)
    }

    /// The push book as stored; rows that no longer validate are skipped
    /// with a warning (a message over the limits, a token or app ID that is
    /// not one).
    static func pushBook(from store: StateStore, logger: Logger) throws -> PushBook {
        var registrations: [PushRegistration] = []
        for row in try store.loadPushRegistrations() {
            guard let token = try? PushToken(row.token), let app = try? AppID(row.app),
                let connector = ConnectorVersion(rawValue: row.connector), let key = try? PushServerKey(row.serverKey)
            else {
                logger.warning("skipping a stored push registration of '\(AppID.printable(row.app))' (invalid token, app ID, key or connector)")
                continue
            }
            registrations.append(
                PushRegistration(
                    token: token, app: app, serverKey: key, description: row.description, vapid: row.vapid,
                    connector: connector, endpoint: row.endpoint, endpointExpiry: row.endpointExpiry,
                    messages: row.messages, lastMessage: row.lastMessage))
        }
        var held: [HeldPushMessage] = []
        var highest: UInt64 = 0
        for row in try store.loadHeldPushMessages() {
            highest = max(highest, row.id)
            guard let token = try? PushToken(row.token), (1...PushBook.maximumMessageBytes).contains(row.size) else {
                logger.warning("skipping held push message \(row.id) (invalid token or size)")
                continue
            }
            held.append(HeldPushMessage(id: row.id, token: token, serverID: row.serverID, size: row.size, received: row.received))
        }
        let row = try store.loadPushServer()
        let server = row.flatMap { pushServer(from: $0, logger: logger) }
        return PushBook(restoring: registrations, held: held, lastMessageID: highest, server: server, serverCursor: row?.cursor)
    }
}
