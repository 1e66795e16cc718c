import Logging
import NotifyCore
import NotifyStore

/// Conversions between the push book and the store's rows.
extension StateMapping {
    static func row(_ registration: PushRegistration) -> StoredPushRegistration {
        StoredPushRegistration(
            token: registration.token.rawValue, app: registration.app.rawValue, description: registration.description,
            vapid: registration.vapid, connector: registration.connector.rawValue, endpoint: registration.endpoint,
            messages: registration.messages, lastMessage: registration.lastMessage)
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
                let connector = ConnectorVersion(rawValue: row.connector)
            else {
                logger.warning("skipping a stored push registration of '\(AppID.printable(row.app))' (invalid token, app ID or connector)")
                continue
            }
            registrations.append(
                PushRegistration(
                    token: token, app: app, description: row.description, vapid: row.vapid, connector: connector,
                    endpoint: row.endpoint, messages: row.messages, lastMessage: row.lastMessage))
        }
        var held: [PushMessage] = []
        var highest: UInt64 = 0
        for row in try store.loadPushMessages() {
            highest = max(highest, row.id)
            guard let token = try? PushToken(row.token), (1...PushBook.maximumMessageBytes).contains(row.body.count) else {
                logger.warning("skipping held push message \(row.id) (invalid token or size)")
                continue
            }
            held.append(PushMessage(id: row.id, token: token, serverID: row.serverID, body: row.body, received: row.received))
        }
        return PushBook(restoring: registrations, held: held, lastMessageID: highest)
    }
}
