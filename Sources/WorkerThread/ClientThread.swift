import CLinux
import Glibc
import Synchronization

/// The thread a worker runs on (a push client, the transfer engine): a
/// plain POSIX thread, named (as `ps -L` and `/proc/self/task/ID/comm`
/// show it), that runs one body and ends; its owner joins it when it stops.
///
/// SIGPIPE is blocked on the thread only: a write to a dropped socket
/// raises it in the writing thread (libstrophe 0.12 writes without
/// MSG_NOSIGNAL; libcurl is told not to touch signals at all, see
/// `CURLOPT_NOSIGNAL`), and the thread inherits the mask in force while it
/// is created.
public final class ClientThread: Sendable {
    /// The kernel's id of the thread, once it runs; 0 before.
    private let id = Atomic<Int32>(0)
    private let name: String
    private let body: @Sendable () -> Void

    private init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// The kernel's id of the thread (`/proc/self/task/ID`), once it runs; 0 before.
    public var threadID: Int32 { id.load(ordering: .acquiring) }

    /// Starts `body` on a new thread named `name` (15 bytes are kept).
    ///
    /// - Returns: the thread, to join (by ``ClientRunner``, the one owner
    ///   of threads outside this module), and what says its id.
    /// - Throws: why `pthread_create` failed, in words.
    static func start(named name: String, _ body: @escaping @Sendable () -> Void)
        throws(StartFailure) -> (thread: pthread_t, identity: ClientThread)
    {
        let identity = ClientThread(name: name, body: body)
        // Released by the thread once it runs, or below when it cannot start.
        let context = Unmanaged.passRetained(identity).toOpaque()
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<ClientThread>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        guard created == 0 else {
            Unmanaged<ClientThread>.fromOpaque(context).release()
            throw StartFailure(description: String(cString: strerror(created)))
        }
        return (thread, identity)
    }

    /// Why a thread could not be started, in words (`strerror`).
    public struct StartFailure: Error, CustomStringConvertible {
        /// `strerror` of `pthread_create`'s result.
        public let description: String
    }

    private func run() {
        _ = clinux_set_thread_name(name)
        id.store(clinux_thread_id(), ordering: .releasing)
        body()
    }
}

/// A worker's thread with the mailbox to it: commands posted from any
/// thread, the thread's id, and a stop that joins it (once).
public final class ClientRunner<Command: Sendable>: Sendable {
    /// The commands waiting for the thread, and the eventfd that wakes it.
    public let mailbox = CommandMailbox<Command>()
    private let thread: pthread_t
    private let identity: ClientThread
    private let stopCommand: Command
    private let stopped = Mutex(false)

    /// Starts `body` with the mailbox on a thread named `name`; `stop` is
    /// the command that makes `body` return.
    ///
    /// - Throws: ``ClientThread/StartFailure`` when the thread cannot be started.
    public init(named name: String, stop: Command, _ body: @escaping @Sendable (CommandMailbox<Command>) -> Void)
        throws(ClientThread.StartFailure)
    {
        let mailbox = self.mailbox
        stopCommand = stop
        (thread, identity) = try ClientThread.start(named: name) { body(mailbox) }
    }

    /// The kernel's id of the thread, once it runs; 0 before.
    public var threadID: Int32 { identity.threadID }

    /// Leaves `command` for the thread and wakes it.
    public func post(_ command: Command) { mailbox.post(command) }

    /// Posts the stop command and waits for the thread to end (at once
    /// when it was stopped before). Never from the thread itself.
    public func stop() {
        guard takeStop() else { return }
        mailbox.post(stopCommand)
        pthread_join(thread, nil)
    }

    /// Posts the stop command and returns at once: the thread ends by
    /// itself (detached), for an owner that must not wait for a disconnect.
    public func stopWithoutWaiting() {
        guard takeStop() else { return }
        mailbox.post(stopCommand)
        pthread_detach(thread)
    }

    /// True for the first stop asked, of either kind.
    private func takeStop() -> Bool {
        stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
    }
}
