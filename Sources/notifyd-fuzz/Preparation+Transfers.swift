import DBus

/// The transfers' part of the legitimate state, and the settling of the
/// accepted-transfer family's.
extension Preparation {
    /// One row of `ListTransfers`.
    struct TransferRow {
        var id: UInt64
        var app: String
        var session: String
        var details: [String: DBusValue]

        var state: String { if case .string(let state)? = details["state"] { state } else { "" } }
        var title: String { if case .string(let title)? = details["title"] { title } else { "" } }
        var hasEnded: Bool { ["completed", "failed", "cancelled"].contains(state) }
    }

    /// Every transfer notifyd lists: those not ended, then the last ended.
    static func transfers(_ connection: DBusConnection) throws -> [TransferRow] {
        let reply = try connection.call(destination: Contract.busName, path: Contract.path, interface: Contract.transfers, member: "ListTransfers")
        guard case .array(_, let rows)? = reply.first else { return [] }
        return rows.compactMap { row in
            guard case .structure(let fields) = row, fields.count == 4, case .uint64(let id) = fields[0], case .string(let app) = fields[1],
                case .string(let session) = fields[2], let details = fields[3].vardictEntries
            else { return nil }
            return TransferRow(id: id, app: app, session: session, details: details)
        }
    }

    /// The two legitimate transfers (``Legit/transferApp``), which never
    /// start: one waiting, one suspended. Made when missing, put back in
    /// their state when found otherwise.
    static func prepareTransfers(_ connection: DBusConnection) throws {
        func call(_ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
            try connection.call(destination: Contract.busName, path: Contract.path, interface: Contract.transfers, member: member, arguments)
        }
        let mine = try transfers(connection).filter { $0.app == Legit.transferApp && !$0.hasEnded }
        for (title, suspended) in [(Legit.waitingTransferTitle, false), (Legit.suspendedTransferTitle, true)] {
            var id = mine.first { $0.title == title }?.id
            if id == nil {
                let name = suspended ? "legit-suspended" : "legit-waiting"
                let options: [String: DBusValue] = [
                    "not-before": .int64(Legit.farFuture), "title": .string(title), "notify": .boolean(false), "badge": .int32(0),
                ]
                let reply = try call("Download", [
                    .string(Legit.transferApp), .string(Legit.transferSession), .string("http://127.0.0.1:9/\(name)"),
                    .string("\(Legit.transferDirectory)/\(name)"), .vardict(options),
                ])
                guard case .uint64(let made)? = reply.first else { throw FuzzFailure("Download answered no transfer ID: \(reply)") }
                id = made
            }
            // A no-op when it is in its state already.
            if let id { _ = try call(suspended ? "SuspendTransfer" : "ResumeTransfer", [.uint64(id)]) }
        }
        let now = try legitTransfers(connection)
        guard now.waiting != nil, now.suspended != nil else { throw FuzzFailure("the legitimate transfers are not in place: \(now)") }
    }

    /// The legitimate transfers not ended, by title (the waiting one must
    /// not be suspended, the suspended one must be).
    static func legitTransfers(_ connection: DBusConnection) throws -> (waiting: UInt64?, suspended: UInt64?) {
        let mine = try transfers(connection).filter { $0.app == Legit.transferApp && !$0.hasEnded }
        return (mine.first { $0.title == Legit.waitingTransferTitle && $0.state != "suspended" }?.id,
                mine.first { $0.title == Legit.suspendedTransferTitle && $0.state == "suspended" }?.id)
    }

    /// Cancels every accepted-transfer transfer not ended (the run cancels
    /// each once answered; these are what an interrupted run or a failed
    /// follow-up left), then the silent `failed` events their cancelling
    /// left in their sessions. Returns how many transfers it cancelled.
    @discardableResult
    static func settleTransfers(_ connection: DBusConnection) throws -> Int {
        var cancelled = 0
        for row in try transfers(connection) where row.app.hasPrefix(Legit.acceptedTransferPrefix) && !row.hasEnded {
            _ = try connection.call(
                destination: Contract.busName, path: Contract.path, interface: Contract.transfers, member: "CancelTransfer", [.uint64(row.id)])
            cancelled += 1
        }
        for (session, pending) in try pendingBySession(connection) where session.hasPrefix(Legit.acceptedTransferSessionPrefix) && pending > 0 {
            _ = try connection.call(
                destination: Contract.busName, path: Contract.path, interface: Contract.sessions, member: "CancelSession", [.string(session)])
        }
        return cancelled
    }
}
