import Logging
import NotifyCore
import NotifyStore

/// Conversions between the transfer book and the store's rows.
extension StateMapping {
    static func row(_ record: TransferRecord) -> StoredTransfer {
        let options = record.options
        return StoredTransfer(
            id: record.id, app: record.app.rawValue, session: record.session.rawValue,
            direction: record.direction.rawValue, url: record.url, path: record.path, state: record.state.rawValue,
            reason: record.reason, bytesDone: record.bytesDone, bytesTotal: record.bytesTotal,
            attempts: record.attempts, validator: record.validator, retryAt: record.retryAt,
            lastProgress: record.lastProgress, created: record.created, ended: record.ended,
            finalPath: record.finalPath,
            options: StoredTransfer.Options(
                title: options.title, headers: options.headers, method: options.method, sha256: options.sha256,
                allowMetered: options.allowMetered, discretionary: options.discretionary,
                notBefore: options.notBefore, overwrite: options.overwrite, notify: options.notify,
                sound: options.sound, badge: options.badge, timeout: options.timeout))
    }

    /// The transfer book as stored; a row that no longer validates is
    /// skipped with a warning.
    static func transferBook(from store: StateStore, logger: Logger) throws -> TransferBook {
        var records: [TransferRecord] = []
        var highest: UInt64 = 0
        for row in try store.loadTransfers() {
            highest = max(highest, row.id)
            guard let app = try? AppID(row.app), let session = try? SessionID(row.session),
                let direction = TransferRecord.Direction(rawValue: row.direction),
                let state = TransferRecord.State(rawValue: row.state)
            else {
                logger.warning("skipping stored transfer \(row.id) (invalid app, session, direction or state)")
                continue
            }
            let stored = row.options
            let options = TransferOptions(
                title: stored.title, headers: stored.headers, method: stored.method, sha256: stored.sha256,
                allowMetered: stored.allowMetered, discretionary: stored.discretionary, notBefore: stored.notBefore,
                overwrite: stored.overwrite, notify: stored.notify, sound: stored.sound, badge: stored.badge,
                timeout: stored.timeout)
            records.append(
                TransferRecord(
                    id: row.id, app: app, session: session, direction: direction, url: row.url, path: row.path,
                    options: options, created: row.created, state: state, reason: row.reason,
                    bytesDone: row.bytesDone, bytesTotal: row.bytesTotal, attempts: row.attempts,
                    validator: row.validator, retryAt: row.retryAt, lastProgress: row.lastProgress, ended: row.ended,
                    finalPath: row.finalPath))
        }
        return TransferBook.restoring(records, lastID: highest)
    }
}
