import DBus
import Glibc
import NotifyCore

/// `org.notifyd.Notifyd1.Transfers`: background downloads and uploads
/// that notifyd carries out itself (SPEC "Background transfers"). Each
/// handler decodes and checks, authorizes, asks the core, and answers once
/// the transfer is stored; the ``TransferRunner`` carries the core's
/// starts and stops to the engine.
final class TransferService {
    private let committer: Committer
    private let callers: CallerCheck?
    private let clock: any DaemonClock
    private let runner: TransferRunner
    /// The user's home, under which a sandboxed app's own directory is.
    private let home: String

    init(committer: Committer, callers: CallerCheck?, clock: any DaemonClock, runner: TransferRunner) {
        self.committer = committer
        self.callers = callers
        self.clock = clock
        self.runner = runner
        home = getenv("HOME").map { String(cString: $0) } ?? "/"
    }

    func download(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let url = try TransferRequest.url(call.argument(2))
        let path = try TransferRequest.path(call.argument(3), download: true)
        return try add(.download, call, url: url, path: path)
    }

    func upload(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let path = try TransferRequest.path(call.argument(2), download: false)
        let url = try TransferRequest.url(call.argument(3))
        return try add(.upload, call, url: url, path: path)
    }

    private func add(
        _ direction: TransferRecord.Direction, _ call: DBusMethodCall, url: String, path: String
    ) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        let session = try SessionID(call.argument(1))
        let options = try TransferRequest.options(call.arguments.dropFirst(4).first, download: direction == .download)
        try callers?.authorize(call, for: app)
        try confine(path, of: call, to: app)
        runner.followSystem()
        let (conditions, now) = (runner.conditions, clock.now())
        let record = try committer.apply { (state) throws(NotifydError) in
            try state.addTransfer(
                direction, app: app, session: session, url: url, path: path, options: options,
                conditions: conditions, at: now)
        }
        return committer.respond(call, [.uint64(record.id)])
    }

    /// A sandboxed caller (or one notifyd could not look at) names files
    /// under `~/.var/app/APP_ID/` only: it cannot write outside its own
    /// directory, nor send the user's other files (`~/.ssh/id_rsa`).
    private func confine(_ path: String, of call: DBusMethodCall, to app: AppID) throws(NotifydError) {
        guard let callers else { return }
        if case .host = try callers.sandbox(of: call, actingFor: app) { return }
        let own = "\(home)/.var/app/\(app.rawValue)/"
        guard path.hasPrefix(own) else {
            throw NotifydError(
                .notPermitted, "a sandboxed app transfers files of its own directory only (\(own)), not '\(AppID.printable(path))'")
        }
    }

    func cancel(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try change(call) { state, id, conditions, now throws(NotifydError) in
            try state.cancelTransfer(id, conditions: conditions, at: now)
        }
    }

    func suspend(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try change(call) { state, id, conditions, now throws(NotifydError) in
            try state.suspendTransfer(id, conditions: conditions, at: now)
        }
    }

    func resume(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try change(call) { state, id, conditions, now throws(NotifydError) in
            try state.resumeTransfer(id, conditions: conditions, at: now)
        }
    }

    private func change(
        _ call: DBusMethodCall,
        _ operation: (inout NotifydState, UInt64, TransferConditions, Microseconds) throws(NotifydError) -> Decision<Void>
    ) throws -> DBusMethodResult {
        let id: UInt64 = try call.argument(0)
        try callers?.authorize(call, for: try committer.current.transfers.liveTransfer(id).app)
        let (conditions, now) = (runner.conditions, clock.now())
        try committer.apply { (state) throws(NotifydError) in try operation(&state, id, conditions, now) }
        return committer.respond(call, [])
    }

    func get(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let id: UInt64 = try call.argument(0)
        let visibility = try callers?.visibility(for: call)
        return try committer.read(call) { [committer] in
            let record = try committer.committed.transfers.transfer(id)
            guard visibility?.shows(record.app) ?? true else {
                throw NotifydError(.notPermitted, "transfer \(id) belongs to another app")
            }
            return .reply([.vardict(Self.details(record))])
        }
    }

    func list(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let visibility = try callers?.visibility(for: call)
        return committer.read(call) { [committer] in
            let rows: [DBusValue] = committer.committed.transfers.all
                .filter { visibility?.shows($0.app) ?? true }
                .map { record in
                    .structure([
                        .uint64(record.id), .string(record.app.rawValue), .string(record.session.rawValue),
                        .vardict(Self.details(record)),
                    ])
                }
            return .reply([.array(element: Self.row, rows)])
        }
    }

    /// The details of SPEC, and more: never the URL's credentials or a header.
    static func details(_ record: TransferRecord) -> [String: DBusValue] {
        var details: [String: DBusValue] = [
            "direction": .string(record.direction.rawValue), "url": .string(record.displayURL),
            "path": .string(record.shownPath), "state": .string(record.state.rawValue),
            "reason": .string(record.reason), "bytes-done": .uint64(record.bytesDone),
            "bytes-total": .uint64(record.bytesTotal), "attempts": .uint32(record.attempts),
            "title": .string(record.title), "created": .int64(record.created),
        ]
        if let ended = record.ended { details["ended"] = .int64(ended) }
        if let retryAt = record.retryAt { details["retry-at"] = .int64(retryAt) }
        if let notBefore = record.options.notBefore { details["not-before"] = .int64(notBefore) }
        return details
    }

    /// `(tssa{sv})`: transfer ID, app, session, details.
    static var row: DBusType { .structure([.uint64, .string, .string, .dictionary(key: .string, value: .variant)]) }
}
