import Logging
import NotifyCore
import NotifyStore

/// Conversions between the core's records and the store's rows. Rows that
/// no longer validate (a hand-edited database) are skipped with a warning
/// rather than stopping the daemon.
enum StateMapping {
    static func row(_ session: SessionRecord) -> StoredSession {
        StoredSession(
            id: session.id.rawValue, app: session.app.rawValue, events: session.events,
            lastEvent: session.lastEvent, bytesWritten: session.bytesWritten, bytesExpected: session.bytesExpected,
            progress: session.progress, inProgress: session.inProgress, lastResult: session.lastResult?.rawValue)
    }

    static func row(_ handler: CompletionHandler) -> StoredHandler {
        StoredHandler(
            id: handler.id, session: handler.session.rawValue, app: handler.app.rawValue,
            storedAt: handler.storedAt, deadline: handler.deadline)
    }

    static func record(_ row: StoredSession, logger: Logger) -> SessionRecord? {
        guard let id = try? SessionID(row.id), let app = try? AppID(row.app) else {
            logger.warning("skipping a stored session with an invalid ID or app: '\(row.id)' of '\(row.app)'")
            return nil
        }
        return SessionRecord(
            id: id, app: app, events: row.events, lastEvent: row.lastEvent, bytesWritten: row.bytesWritten,
            bytesExpected: row.bytesExpected, progress: row.progress, inProgress: row.inProgress,
            lastResult: row.lastResult.flatMap(HandlerResult.init(rawValue:)))
    }

    static func handler(_ row: StoredHandler, logger: Logger) -> CompletionHandler? {
        guard let session = try? SessionID(row.session), let app = try? AppID(row.app) else {
            logger.warning("skipping stored handler \(row.id) with an invalid session or app")
            return nil
        }
        return CompletionHandler(id: row.id, session: session, app: app, storedAt: row.storedAt, deadline: row.deadline)
    }

    /// Everything the store holds, as the core's state.
    static func load(from store: StateStore, logger: Logger) throws -> NotifydState {
        var badges: [AppID: UInt32] = [:]
        for (name, count) in try store.loadBadges() {
            guard let app = try? AppID(name) else {
                logger.warning("skipping a stored badge of an invalid app ID '\(name)'")
                continue
            }
            badges[app] = min(count, BadgeBook.maximum)
        }
        let sessions = try store.loadSessions().compactMap { record($0, logger: logger) }
        let handlers = try store.loadHandlers().compactMap { handler($0, logger: logger) }
        let book = SessionBook(restoring: sessions, handlers: handlers, lastHandlerID: try store.loadLastHandlerID())
        var histories: [AppID: [Microseconds]] = [:]
        for stored in try store.loadActivationHistories() {
            guard let app = try? AppID(stored.app) else { continue }
            histories[app] = stored.times
        }
        return NotifydState(
            badges: BadgeBook(badges), sessions: book, apps: AppBook(restoringHistories: histories),
            fetches: try fetchBook(from: store, logger: logger), push: try pushBook(from: store, logger: logger),
            transfers: try transferBook(from: store, logger: logger))
    }
}
