import DBus
import Logging
import NotifyCore

/// What notifyd could learn about a bus connection.
enum CallerLookup: Sendable {
    /// The bus vouched for its user and process, and `/proc` was read.
    case identified(CallerIdentity)
    /// It (or its process) was gone before it could be identified; why.
    case departed(String)
    /// Identifying it failed for want of resources (descriptors, memory,
    /// a bus limit): not the caller's fault, never cached; why.
    case unavailable(String)
}

/// Identifies bus connections on a thread and a connection of its own, as
/// early as the bus allows: when a unique name appears (`NameOwnerChanged`)
/// its credentials are asked at once, asynchronously, and its process is
/// read in `/proc` as soon as they arrive.
///
/// The thread is what makes this early: the daemon's own loop may be
/// committing a batch, and its connection queues replies and signals ahead
/// of any question, while a `gdbus emit` lives for about a millisecond
/// after its `Hello`. Results go to `deliver`, from this thread.
final class ConnectionIdentifier: @unchecked Sendable {
    // Unchecked: every stored property but the immutable ones is touched
    // on the thread's loop only (setup is posted there too).

    /// At most this many questions to the bus at once; past it a lookup
    /// is answered `unavailable` (a burst of connections on a loaded bus).
    static let inFlightLimit = 4096

    private let thread: EventLoopThread
    /// Set before the thread starts; after that used, and released, on
    /// the thread only (its loop registrations must be removed there).
    private var connection: DBusConnection?
    private let logger: Logger
    private let deliver: @Sendable (String, CallerLookup) -> Void
    private var inFlight: Set<String> = []

    /// Connects to `bus` (blocking: start-up only) and starts the thread.
    init(
        bus: DBusConnection.Bus, logger: Logger, deliver: @escaping @Sendable (String, CallerLookup) -> Void
    ) throws(DBusError) {
        self.logger = logger
        self.deliver = deliver
        connection = try DBusConnection.connect(to: bus, private: true, logger: logger)
        thread = try EventLoopThread(name: "notifyd-ident")
        thread.loop.execute { [self] in start() }
    }

    /// Closes the connection on the thread, then stops the thread;
    /// results not yet delivered are dropped. Not from the thread itself.
    /// Idempotent; whoever owns this must call it (``CallerCheck`` does,
    /// also when the daemon fails to start).
    func stop() {
        thread.loop.execute { [self] in
            connection?.close()
            connection = nil
        }
        thread.stop()
    }

    /// Identifies `name` (a unique name) unless that is already under way.
    /// Safe from any thread.
    func request(_ name: String) {
        thread.loop.execute { [self] in lookUp(name) }
    }

    // MARK: On the thread

    private func start() {
        guard let connection else { return }
        do {
            try connection.attach(to: thread.loop)
            try connection.subscribe(
                DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged")
            ) { [weak self] message in self?.nameAppeared(message) }
        } catch {
            logger.error("cannot follow new bus connections; each is identified when it first calls: \(error)")
        }
    }

    private func nameAppeared(_ message: DBusMessage) {
        guard let arguments = try? message.arguments(), arguments.count == 3,
            case .string(let name) = arguments[0], case .string(let oldOwner) = arguments[1],
            case .string(let newOwner) = arguments[2], name.hasPrefix(":"), oldOwner.isEmpty, !newOwner.isEmpty
        else { return }
        lookUp(name)
    }

    private func lookUp(_ name: String) {
        guard let connection else { return }
        guard !inFlight.contains(name) else { return }
        guard inFlight.count < Self.inFlightLimit else {
            deliver(name, .unavailable("\(Self.inFlightLimit) bus connections are being identified at once"))
            return
        }
        inFlight.insert(name)
        do {
            let question = try DBusMessage.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetConnectionCredentials", arguments: [.string(name)])
            try connection.callAsync(question, timeoutMilliseconds: 10_000) { [self] result in
                inFlight.remove(name)
                deliver(name, Self.lookup(from: result))
            }
        } catch {
            inFlight.remove(name)
            deliver(name, .unavailable("cannot ask the bus who \(name) is: \(error.message)"))
        }
    }

    /// What the bus's answer (and then `/proc`) says.
    static func lookup(from result: Result<DBusMessage, DBusError>) -> CallerLookup {
        let credentials: [String: DBusValue]
        switch result {
        case .failure(let error) where error.name == DBusError.Name.nameHasNoOwner:
            return .departed("it left the bus before notifyd could ask the bus who it was")
        case .failure(let error):
            return .unavailable("the bus did not say who it is: \(error.message)")
        case .success(let reply):
            guard let decoded: [String: DBusValue] = try? reply.arguments().decode(0) else {
                return .unavailable("the bus answered GetConnectionCredentials with '\(reply.signature)'")
            }
            credentials = decoded
        }
        guard case .uint32(let user)? = credentials["UnixUserID"] else {
            return .unavailable("the bus gave no Unix user ID for it")
        }
        guard case .uint32(let pid)? = credentials["ProcessID"] else {
            return .identified(CallerIdentity(userID: user, processID: nil, sandbox: .unknown))
        }
        return ProcessFacts.lookup(userID: user, processID: pid)
    }
}
