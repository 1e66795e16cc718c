import DBus
import Logging
import Synchronization

/// notifyd's one systemd-logind sleep lock, for all running tasks (SPEC
/// "Finite-length background tasks"): `Inhibit("sleep", "notifyd", WHY,
/// "block")` on the system bus, whose answer is a file descriptor that
/// holds the lock until it is closed.
///
/// It works on a thread of its own with its own system-bus connection,
/// made when the first task begins (connecting blocks that thread, never
/// the daemon's loop). When the set of tasks changes, the new lock is
/// taken before the old descriptor is closed, so sleep is never let in
/// between; when the last task ends, the descriptor is closed. Without a
/// system bus or logind, or when logind refuses (polkit), tasks work the
/// same without a lock: one log line says why, and ``onChange`` reports
/// false. A system bus that could not be reached is tried again no sooner
/// than `reconnectWaitNanoseconds` (10 s) later (at the next lock wanted after
/// that), not at every task or push delivery: in a container without one,
/// each delivery would otherwise cost this thread a failed `connect`.
final class SleepInhibitor: @unchecked Sendable {
    // Unchecked: the mutable state is touched on the thread's loop only.

    private let thread: EventLoopThread
    private let bus: DBusConnection.Bus
    private let logger: Logger
    /// Whether a lock is held, on every change (on the inhibitor's thread).
    private let onChange: @Sendable (Bool) -> Void

    private var connection: DBusConnection?
    /// When connecting to the system bus last failed (`CLOCK_BOOTTIME`).
    private var connectFailedAt: UInt64?
    /// Connections to the system bus tried so far.
    private var connectAttempts = 0
    /// How long a failed connection keeps the next attempt off.
    private let reconnectWaitNanoseconds: UInt64
    /// Why connecting or asking failed, logged once per reason.
    private var lastFailure: String?
    /// The WHY wanted now; nil for no lock.
    private var desired: String?
    /// Counts the locks wanted, so an old answer never replaces a newer one.
    private var generation = 0
    private var held: (generation: Int, descriptor: DBusFileDescriptor)?

    init(
        bus: DBusConnection.Bus = .system, reconnectWaitNanoseconds: UInt64 = 10_000_000_000, logger: Logger,
        onChange: @escaping @Sendable (Bool) -> Void
    ) throws(DBusError) {
        self.bus = bus
        self.reconnectWaitNanoseconds = reconnectWaitNanoseconds
        self.logger = logger
        self.onChange = onChange
        thread = try EventLoopThread(name: "notifyd-logind")
    }

    /// The lock must now say `why`, or be released (nil). Safe from any thread.
    func want(_ why: String?) {
        thread.loop.execute { [self] in update(why) }
    }

    /// Releases the lock, closes the connection and stops the thread. Idempotent.
    func stop() {
        thread.loop.execute { [self] in
            desired = nil
            setHeld(nil)
            connection?.close()
            connection = nil
        }
        thread.stop()
    }

    /// How many times a connection to the system bus was tried, once the
    /// work posted before this call is done (for tests; blocks the caller).
    func connectionAttempts() -> Int {
        let done = Semaphore()
        let count = Mutex(0)
        thread.loop.execute { [self] in
            count.withLock { $0 = connectAttempts }
            done.signal()
        }
        done.wait()
        return count.withLock { $0 }
    }

    // MARK: On the thread

    private func update(_ why: String?) {
        desired = why
        generation += 1
        guard let why else {
            setHeld(nil)
            return
        }
        guard let connection = connected() else { return }
        let asked = generation
        do {
            let message = try DBusMessage.methodCall(
                destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                interface: "org.freedesktop.login1.Manager", member: "Inhibit",
                arguments: [.string("sleep"), .string("notifyd"), .string(why), .string("block")])
            try connection.callAsync(message, timeoutMilliseconds: 25_000) { [self] result in
                answered(result, generation: asked)
            }
        } catch {
            failed("cannot ask systemd-logind for a sleep lock: \(error.message)")
        }
    }

    private func answered(_ result: Result<DBusMessage, DBusError>, generation asked: Int) {
        switch result {
        case .failure(let error):
            failed("systemd-logind gave no sleep lock (\(error.name)): \(error.message)")
        case .success(let reply):
            guard case .unixFD(let descriptor)? = try? reply.arguments().first else {
                failed("systemd-logind answered Inhibit without a file descriptor")
                return
            }
            // Released (or superseded by a lock already held): the
            // descriptor closes when `descriptor` goes.
            guard desired != nil, asked > (held?.generation ?? 0) else { return }
            // The new lock first, then the old one closes: no gap.
            setHeld((asked, descriptor))
            if lastFailure != nil {
                logger.info("systemd-logind holds off sleep for notifyd's tasks again")
                lastFailure = nil
            }
        }
    }

    private func setHeld(_ lock: (generation: Int, descriptor: DBusFileDescriptor)?) {
        let was = held != nil
        held = lock
        if was != (lock != nil) { onChange(lock != nil) }
    }

    /// The system-bus connection, made on first use (blocking this thread only).
    private func connected() -> DBusConnection? {
        if let connection, connection.isConnected { return connection }
        connection = nil
        let now = EventLoop.now()
        if let failedAt = connectFailedAt, now &- failedAt < reconnectWaitNanoseconds { return nil }
        connectAttempts += 1
        do {
            let made = try DBusConnection.connect(to: bus, private: true, logger: logger)
            try made.attach(to: thread.loop)
            made.onDisconnect { [weak self] in self?.lost() }
            connection = made
            connectFailedAt = nil
            return made
        } catch {
            connectFailedAt = now
            failed("no system bus to ask systemd-logind for a sleep lock: \(error.message)")
            return nil
        }
    }

    private func lost() {
        connection = nil
        setHeld(nil)
        failed("the system bus went away; tasks go on without a sleep lock")
    }

    /// One log line per reason: tasks go on without the lock.
    private func failed(_ why: String) {
        guard why != lastFailure else { return }
        lastFailure = why
        logger.notice("\(why); background tasks run without holding off sleep")
    }
}
