import CLinux
import Glibc
import Synchronization

/// An ``EventLoop`` running on a pthread of its own, for work that must not
/// wait behind the owner's loop (the daemon identifies new bus connections
/// there while its own loop commits state).
///
/// The thread starts with asynchronous signals blocked, so a SIGTERM meant
/// for the daemon's signalfd never lands here. ``stop()`` ends the loop and
/// joins the thread; work still posted is dropped unrun.
public final class EventLoopThread: @unchecked Sendable {
    // Unchecked: `loop` is set once before init returns and EventLoop's
    // cross-thread entry points (execute, stop) are thread-safe; the
    // thread handle is behind a mutex.

    /// The loop; only ``EventLoop/execute(_:)`` and ``EventLoop/stop()`` may
    /// be called on it from other threads.
    public let loop: EventLoop
    private let thread: Mutex<pthread_t?>

    /// Creates the loop and starts its thread.
    ///
    /// - Parameter name: the thread's name in `ps -L` (15 bytes are kept).
    public init(name: String) throws(DBusError) {
        let loop = try EventLoop()
        self.loop = loop
        let start = Unmanaged.passRetained(ThreadStart(loop: loop, name: name))
        var handle = pthread_t()
        var blocked = sigset_t()
        var previous = sigset_t()
        sigfillset(&blocked)
        for synchronous in [SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT] { sigdelset(&blocked, synchronous) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let created = pthread_create(&handle, nil, eventLoopThreadMain, start.toOpaque())
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        guard created == 0 else {
            start.release()
            throw DBusError(DBusError.Name.noMemory, "cannot start the \(name) thread: \(String(cString: strerror(created)))")
        }
        thread = Mutex(handle)
    }

    deinit { stop() }

    /// Stops the loop and waits for the thread to end. Idempotent; not
    /// from the loop's own thread.
    public func stop() {
        guard let handle = thread.withLock({ handle -> pthread_t? in
            defer { handle = nil }
            return handle
        }) else { return }
        // Posted, not set directly: `run()` clears a stop requested before
        // it started, and a posted stop runs only once it has.
        loop.execute { [loop] in loop.stop() }
        pthread_join(handle, nil)
    }
}

/// What the new thread needs, passed retained and released by the thread.
private final class ThreadStart {
    let loop: EventLoop
    let name: String

    init(loop: EventLoop, name: String) {
        self.loop = loop
        self.name = name
    }
}

private func eventLoopThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let start = Unmanaged<ThreadStart>.fromOpaque(argument).takeRetainedValue()
    _ = clinux_set_thread_name(start.name)
    start.loop.run()
    return nil
}
