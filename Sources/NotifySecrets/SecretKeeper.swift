import CLibsecret
import Synchronization

/// Keeps notifyd's push-server password in the freedesktop Secret Service
/// (through libsecret) when one answers, on a thread of its own named
/// `notifyd-secrets`, so that its callers (the daemon's bus thread) never
/// block on it.
///
/// Calls may come from any thread; they are queued and run one at a time.
/// Each answer goes to its `done` closure on the keeper's thread: the
/// caller hops it onto its own loop. The thread sleeps while there is no
/// work (no timer). Each call is bounded by `timeoutSeconds` (10 s unless
/// told): a keyring whose unlock prompt nobody answers, or a service that
/// does not answer, ends as `.unavailable`, and the caller keeps the
/// password in its own store.
///
/// The keeper talks to the bus on a connection of its own (never GIO's
/// process-wide session-bus connection), to `busAddress` when given, else
/// to the session bus as found when it first connects
/// (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`); it connects
/// again after that bus went away. It never logs, and no reason it gives
/// contains the password.
public final class SecretKeeper: Sendable {
    /// The bound on each call unless told otherwise, in seconds.
    public static let defaultTimeoutSeconds = 10

    private let queue = SecretQueue()
    /// The keeper's thread (a GThread, a pthread underneath), until joined.
    private let thread: Mutex<UnsafeMutablePointer<GThread>?>

    /// Starts the keeper's thread; nothing connects until the first call.
    ///
    /// - Parameters:
    ///   - busAddress: the D-Bus address of the bus to find the Secret
    ///     Service on; `nil` for the session bus.
    ///   - timeoutSeconds: the bound on each call.
    /// - Throws: ``SecretKeeperError`` when the thread cannot be started.
    public init(busAddress: String? = nil, timeoutSeconds: Int = SecretKeeper.defaultTimeoutSeconds)
        throws(SecretKeeperError)
    {
        let worker = SecretWorker(queue: queue, busAddress: busAddress, timeoutSeconds: max(1, timeoutSeconds))
        let data = Unmanaged.passRetained(worker).toOpaque()
        var error: UnsafeMutablePointer<GError>?
        let started = g_thread_try_new("notifyd-secrets", { data in
            guard let data else { return nil }
            Unmanaged<SecretWorker>.fromOpaque(data).takeRetainedValue().run()
            return nil
        }, data, &error)
        guard let started else {
            Unmanaged<SecretWorker>.fromOpaque(data).release()
            let reason = GLibFailure.take(error, doing: "starting the keeper's thread", timedOut: false, timeoutSeconds: 0)
            throw SecretKeeperError(reason)
        }
        thread = Mutex(started)
    }

    deinit {
        // Not joined here: the last reference may go on the keeper's own
        // thread (from a `done` closure). The thread ends by itself.
        for job in queue.stop() { job.abandon(reason: Self.stoppedReason) }
        if let handle = thread.withLock({ $0 }) { g_thread_unref(handle) }
    }

    /// Stores `password` for `account` on `server` in the Secret Service's
    /// default collection, replacing the one stored before; `label` is what
    /// a keyring manager (Seahorse) shows. A locked default collection is
    /// asked to unlock first (the service may prompt, within the bound).
    ///
    /// - Parameter done: called once, on the keeper's thread, with
    ///   `.storedInSecretService` or `.unavailable(reason:)`.
    public func store(
        _ password: String, account: String, server: String, label: String,
        done: @escaping @Sendable (SecretOutcome) -> Void
    ) {
        submit(.store(password: password, item: SecretItemKey(account: account, server: server), label: label, done: done))
    }

    /// Looks up the password of `account` on `server`.
    ///
    /// - Parameter done: called once, on the keeper's thread, with
    ///   `.found`, `.notFound` or `.unavailable(reason:)`.
    public func lookup(account: String, server: String, done: @escaping @Sendable (SecretLookup) -> Void) {
        submit(.lookup(SecretItemKey(account: account, server: server), done: done))
    }

    /// Deletes the password of `account` on `server`.
    ///
    /// - Parameter done: called once, on the keeper's thread, with
    ///   `.removed`, `.notFound` or `.unavailable(reason:)`.
    public func remove(account: String, server: String, done: @escaping @Sendable (SecretRemoval) -> Void) {
        submit(.remove(SecretItemKey(account: account, server: server), done: done))
    }

    /// Stops the keeper: calls not yet started are answered `.unavailable`
    /// at once, the one under way finishes (each of its D-Bus steps within
    /// the bound: a store into a locked keyring takes up to four), the
    /// connection closes and the thread is joined (unless called from the
    /// keeper's own thread, which then ends by itself). Later calls are
    /// answered `.unavailable`.
    public func stop() {
        for job in queue.stop() { job.abandon(reason: Self.stoppedReason) }
        guard let handle = thread.withLock({ state -> UnsafeMutablePointer<GThread>? in
            defer { state = nil }
            return state
        }) else { return }
        if handle == g_thread_self() {
            g_thread_unref(handle)
        } else {
            g_thread_join(handle)
        }
    }

    private func submit(_ job: SecretJob) {
        if !queue.add(job) { job.abandon(reason: Self.stoppedReason) }
    }

    private static let stoppedReason = "the secret keeper was stopped"
}

/// The keeper could not start.
public struct SecretKeeperError: Error, CustomStringConvertible {
    /// What went wrong, in words.
    public let description: String

    init(_ description: String) { self.description = description }
}
