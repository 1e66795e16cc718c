import DBus
import Glibc
import NotifyCore

/// Follows one transfer to its end on an event loop, for `--wait`.
///
/// Made before the transfer is asked for, so that none of its
/// `TransferChanged` signals can be missed; ``follow(_:app:session:)``
/// then reads its state (`GetTransfer`, in order with the signals) and
/// shows each change until it completes, fails or is cancelled. When
/// notifyd's bus name changes hands (a restart) the transfer is read
/// again; when nobody takes the name back within a few seconds, one
/// `GetTransfer` asks the bus to start notifyd, and "cannot start" is exit 3.
final class TransferFollower {
    /// How it ended: the transfer's last state, or a signal to leave by.
    enum Outcome {
        case ended(TransferInfo)
        case interrupted(Int32)
    }

    /// How long notifyd may be away before notifyctl asks the bus to start it.
    static let absenceNanoseconds: UInt64 = 5_000_000_000

    private let loop: EventLoop
    private let client: DaemonClient
    private let display: TransferDisplay
    private var id: UInt64?
    private var app: String?
    private var session: String?
    /// Signals that came before the transfer's ID was known, by ID.
    private var early: [UInt64: TransferInfo] = [:]
    private var rate = TransferRate()
    private var owner: String?
    private var absence: EventLoop.TimerID?
    private var outcome: Outcome?
    private var failure: NotifyctlError?

    init(client: DaemonClient, display: TransferDisplay) throws(NotifyctlError) {
        self.client = client
        self.display = display
        do {
            loop = try EventLoop()
            try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] signal in stop(.interrupted(signal)) }
            let connection = client.connection
            try connection.attach(to: loop)
            connection.onDisconnect { [unowned self] in fail(NotifyctlError(.notRunning, "the session bus went away.")) }
            try connection.subscribe(
                DBusMatchRule(
                    sender: NotifydNames.busName, interface: NotifydNames.transfersInterface, member: "TransferChanged")
            ) { [unowned self] message in changed(message) }
            try connection.watchNameOwner(NotifydNames.busName) { [unowned self] owner in ownerChanged(owner) }
        } catch {
            throw DaemonClient.failure(for: error)
        }
    }

    /// Shows transfer `id` until it ends or a signal interrupts.
    func follow(_ id: UInt64, app: String, session: String) throws(NotifyctlError) -> Outcome {
        self.id = id
        self.app = app
        self.session = session
        if let info = early.removeValue(forKey: id) { apply(info) }
        early.removeAll()
        read()
        if display.isTerminal { tick() }
        while outcome == nil && failure == nil { loop.run() }
        display.end()
        if let failure { throw failure }
        guard let outcome else { throw NotifyctlError(.daemon, "stopped following transfer \(id)") }
        return outcome
    }

    // MARK: Events

    private func changed(_ message: DBusMessage) {
        guard let owner, message.sender == owner, let arguments = try? message.arguments(), arguments.count >= 5,
            case .uint64(let transfer) = arguments[0], case .string(let app) = arguments[1],
            case .string(let session) = arguments[2], case .string(let state) = arguments[3],
            var details = arguments[4].vardictEntries
        else { return }
        details["state"] = .string(state)
        let info = TransferInfo(id: transfer, app: app, session: session, details: details)
        if let id {
            if transfer == id { apply(info) }
        } else {
            early[transfer] = info
        }
    }

    private func apply(_ update: TransferInfo) {
        guard outcome == nil, failure == nil else { return }
        var info = update
        info.app = info.app ?? app
        info.session = info.session ?? session
        let now = EventLoop.now()
        if info.state == "running" { rate.add(bytes: info.bytesDone, at: now) } else { rate.reset() }
        display.show(info, rate: rate.bytesPerSecond(at: now), at: now)
        if info.hasEnded { stop(.ended(info)) }
    }

    /// Redraws the terminal line every second, so a stall shows.
    private func tick() {
        loop.scheduleTimer(afterNanoseconds: 1_000_000_000) { [unowned self] in
            guard outcome == nil, failure == nil else { return }
            let now = EventLoop.now()
            display.redraw(rate: rate.bytesPerSecond(at: now), at: now)
            tick()
        }
    }

    private func ownerChanged(_ newOwner: String?) {
        let previous = owner
        owner = newOwner
        guard let id, newOwner != previous else { return }
        if let absence {
            loop.cancelTimer(absence)
            self.absence = nil
        }
        if newOwner != nil {
            read()
            return
        }
        display.note("notifyd left the bus; transfer \(id) goes on once it is back")
        absence = loop.scheduleTimer(afterNanoseconds: Self.absenceNanoseconds) { [unowned self] in
            absence = nil
            if owner == nil { read() }  // asks the bus to start notifyd
        }
    }

    /// `GetTransfer`, answered on the loop in order with the signals.
    private func read() {
        guard let id else { return }
        do {
            let message = try DBusMessage.methodCall(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: NotifydNames.transfersInterface, member: "GetTransfer", arguments: [.uint64(id)])
            try client.connection.callAsync(message) { [weak self] result in self?.read(result) }
        } catch {
            fail(DaemonClient.failure(for: error))
        }
    }

    private func read(_ result: Result<DBusMessage, DBusError>) {
        guard let id else { return }
        switch result {
        case .success(let reply):
            guard let details = (try? reply.arguments())?.first?.vardictEntries else {
                return fail(NotifyctlError(.daemon, "notifyd's reply to GetTransfer is not an a{sv}"))
            }
            apply(TransferInfo(id: id, app: nil, session: nil, details: details))
        case .failure(let error):
            let gone = DaemonClient.notRunningErrors.contains(error.name)
                || error.name.hasPrefix(DaemonClient.spawnErrorPrefix)
            guard gone else { return fail(DaemonClient.failure(for: error)) }
            fail(
                NotifyctlError(
                    .notRunning,
                    "notifyd left the bus and cannot be started again; transfer \(id) goes on once it runs "
                        + "(notifyctl transfer show \(id)). \(NotifyctlError.howToStart)"))
        }
    }

    private func stop(_ outcome: Outcome) {
        guard self.outcome == nil, failure == nil else { return }
        self.outcome = outcome
        loop.stop()
    }

    private func fail(_ error: NotifyctlError) {
        guard outcome == nil, failure == nil else { return }
        failure = error
        loop.stop()
    }
}
