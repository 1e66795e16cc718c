public import DBus
public import Logging

/// Transfers in progress as KDE Plasma's own jobs (`org.kde.JobViewServerV2`,
/// what Dolphin and KIO downloads use): a progress bar with the file's name
/// in the notification area and on the app's task button, instead of a
/// popup with a `value` hint, which Plasma does not draw.
///
/// One job per session, requested with the app's desktop entry on the
/// first progress and updated after (`org.kde.JobViewV3.update`); the
/// session's end terminates it, `transient` so that a finished job leaves
/// no entry of its own next to notifyd's "Download complete" popup, and a
/// failed one ends silently (code 1) before notifyd's "Download failed".
/// Every call is asynchronous, on the bus thread; a job lives on notifyd's
/// own connection, which stays open (Plasma marks the job of a connection
/// that left "Application closed unexpectedly").
public final class PlasmaJobViews {
    static let server = "org.kde.JobViewServer"

    private enum Job {
        /// `requestView` sent; the newest fields wait for its answer.
        case requesting(pending: [String: DBusValue], ended: Bool?)
        /// The job's object, on its owner.
        case open(owner: String, path: String)
    }

    private weak var connection: DBusConnection?
    private let logger: Logger
    /// Called after a job ended: Plasma then clears the app's task badge,
    /// which notifyd sends again.
    private let jobEnded: () -> Void
    private var jobs: [String: Job] = [:]

    public init(connection: DBusConnection, logger: Logger, jobEnded: @escaping () -> Void) {
        self.connection = connection
        self.logger = logger
        self.jobEnded = jobEnded
    }

    /// Shows a session's progress: `fields` as `org.kde.JobViewV3.update`
    /// takes them (`title`, `percent`, `processedBytes`, `totalBytes`, ...).
    public func update(session: String, desktopEntry: String, fields: [String: DBusValue]) {
        switch jobs[session] {
        case .requesting(let pending, let ended)?:
            jobs[session] = .requesting(pending: pending.merging(fields) { $1 }, ended: ended)
        case .open(let owner, let path)?:
            call(owner, path, "org.kde.JobViewV3", "update", [.vardict(fields)]) { _ in }
        case nil:
            jobs[session] = .requesting(pending: fields, ended: nil)
            let hints: [String: DBusValue] = ["immediate": .boolean(true), "transient": .boolean(true)]
            call(
                Self.server, "/JobViewServer", "org.kde.JobViewServerV2", "requestView",
                [.string(desktopEntry), .int32(0), .vardict(hints)]
            ) { [weak self] result in self?.viewGranted(session, result) }
        }
    }

    /// The session finished (or failed): its job, if any, ends.
    public func end(session: String, failed: Bool) {
        switch jobs[session] {
        case .requesting(let pending, _)?: jobs[session] = .requesting(pending: pending, ended: failed)
        case .open(let owner, let path)?:
            jobs[session] = nil
            terminate(owner, path, failed: failed)
        case nil: break
        }
    }

    /// The notification server changed: Plasma's jobs went with the old one.
    public func forgetAll() {
        jobs.removeAll()
    }

    private func viewGranted(_ session: String, _ result: Result<DBusMessage, DBusError>) {
        guard case .requesting(let pending, let ended)? = jobs[session] else { return }
        guard case .success(let reply) = result, let owner = reply.sender,
            case .objectPath(let path)? = try? reply.arguments().first
        else {
            if case .failure(let error) = result { logger.warning("Plasma shows no job for \(session): \(error)") }
            jobs[session] = nil
            return
        }
        call(owner, path, "org.kde.JobViewV3", "update", [.vardict(pending)]) { _ in }
        if let failed = ended {
            jobs[session] = nil
            terminate(owner, path, failed: failed)
        } else {
            jobs[session] = .open(owner: owner, path: path)
        }
    }

    private func terminate(_ owner: String, _ path: String, failed: Bool) {
        // 0: done (transient: gone); 1: KIO's "cancelled by the user", ended
        // without a word, since notifyd's own popup says why it failed.
        call(owner, path, "org.kde.JobViewV3", "terminate", [.uint32(failed ? 1 : 0), .string(""), .vardict([:])]) {
            [weak self] _ in self?.jobEnded()
        }
    }

    private func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue],
        _ done: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) {
        do throws(DBusError) {
            guard let connection else { return }
            let message = try DBusMessage.methodCall(
                destination: destination, path: path, interface: interface, member: member, arguments: arguments)
            message.setAutoStart(false)
            try connection.callAsync(message, timeoutMilliseconds: 10_000, completion: done)
        } catch {
            logger.warning("cannot call Plasma's job view (\(member)): \(error)")
            done(.failure(error))
        }
    }
}
