/// The session events a transfer makes, as a worker would send them.
extension NotifydState {
    /// A `progress` event for the transfer's session: docks, progress
    /// popups and `ListSessions` show the transfer's bytes.
    mutating func progressEvent(of record: TransferRecord, at now: Microseconds) -> NotifydOutcome {
        let event = WorkerEvent(
            kind: .progress, title: record.title, path: record.direction == .upload ? record.path : record.finalPath,
            uri: record.displayURL, bytesWritten: record.bytesDone,
            bytesExpected: record.bytesTotal > 0 ? record.bytesTotal : nil)
        return (try? recordEvent(event, session: record.session, app: record.app, at: now))?.outcome ?? NotifydOutcome()
    }

    /// The event that ends the transfer's part of its session: `finished`
    /// (the file written, or sent), `failed` with the reason in words, or,
    /// for a cancelled one, a `failed` event with no popup and no badge.
    /// An event the session cannot take (its limits reached meanwhile) is
    /// left out: the transfer ends all the same.
    mutating func finalEvent(of record: TransferRecord, at now: Microseconds) -> NotifydOutcome {
        let options = record.options
        let upload = record.direction == .upload
        var event = WorkerEvent(
            kind: record.state == .completed ? .finished : .failed, title: record.title,
            path: upload ? record.path : record.finalPath, uri: record.displayURL, sound: options.sound,
            bytesWritten: record.bytesDone, bytesExpected: record.bytesTotal > 0 ? record.bytesTotal : nil,
            badge: options.badge, notify: options.notify, timeout: options.timeout)
        switch record.state {
        case .completed:
            if upload { event.summary = "Upload complete" }
        case .cancelled:
            event.error = "cancelled"
            event.notify = false
            event.badge = 0
        default:
            event.error = record.reason
            if upload { event.summary = "Upload failed" }
        }
        return (try? recordEvent(event, session: record.session, app: record.app, at: now))?.outcome ?? NotifydOutcome()
    }
}
