import CLibnotify
import Dispatch
import Glibc
import Synchronization

/// A thread (a `GThread`, so a named pthread) running `g_main_loop_run` on
/// a `GMainContext` of its own, pushed as the thread's default context, so
/// that everything GLib-based created there (libnotify's GDBus proxy, its
/// signal subscriptions) delivers its callbacks there.
///
/// Work arrives as idle sources attached to the context (thread-safe, and
/// never run re-entrantly inside the caller, even on the thread itself).
/// Each source carries a retained ``Job`` released by its destroy function,
/// whether the job ran or the context was freed first.
///
/// Like GLib's own worker threads, the thread starts with asynchronous
/// signals blocked: a SIGTERM meant for the daemon's signalfd never lands
/// here, whichever was set up first.
final class GLibThread: @unchecked Sendable {
    // Unchecked: `context` and `loop` are immutable pointers to objects
    // GLib documents as thread-safe for what is done here (attaching
    // sources, quitting); the mutable state is behind mutexes.

    let name: String
    /// The thread's `GMainContext`; this object owns one reference.
    private let context: OpaquePointer
    /// The loop running on it; this object owns one reference.
    private let loop: OpaquePointer
    /// The running thread (one reference), nil once stopped.
    private let lifecycle: Mutex<UnsafeMutablePointer<GThread>?>
    private let joinLock = Mutex(())

    /// Starts the thread; `name` shows in `ps -L` (GLib keeps 15 bytes).
    init(name: String) throws(DesktopError) {
        self.name = name
        context = g_main_context_new()
        loop = g_main_loop_new(context, gFalse)
        let start = Unmanaged.passRetained(ThreadStart(context: context, loop: loop))
        let thread: UnsafeMutablePointer<GThread>?
        var previousMask = Self.blockAsynchronousSignals()
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        do throws(DesktopError) {
            thread = try withGError("cannot start the \(name) thread", failed: { $0 == nil }) {
                g_thread_try_new(name, glibThreadMain, start.toOpaque(), $0)
            }
        } catch {
            start.release()
            g_main_loop_unref(loop)
            g_main_context_unref(context)
            throw DesktopError(.thread, error.message)
        }
        lifecycle = Mutex(thread)
    }

    deinit {
        stop()
        // Frees sources still attached (their jobs are released unrun).
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Blocks every signal but the synchronous faults in the calling thread
    /// (so in threads it starts); returns the mask to restore.
    private static func blockAsynchronousSignals() -> sigset_t {
        var mask = sigset_t()
        sigfillset(&mask)
        for fault in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT] { sigdelset(&mask, fault) }
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &mask, &previous)
        return previous
    }

    /// Whether the caller runs on this thread (inside its loop).
    var isCurrent: Bool { g_main_context_is_owner(context) != gFalse }

    /// Queues `work` on the thread; false (and `work` dropped) once stopped.
    @discardableResult
    func perform(_ work: @escaping @Sendable () -> Void) -> Bool {
        lifecycle.withLock { thread in
            guard thread != nil else { return false }
            attach(work)
            return true
        }
    }

    /// Runs `work` on the thread and waits for its result; nil once stopped.
    /// Never call it from the thread itself.
    func sync<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T? {
        precondition(!isCurrent, "GLibThread.sync called on \(name) itself")
        let outcome = SyncOutcome<T>()
        guard perform({ outcome.finish(work()) }) else { return nil }
        return outcome.wait()
    }

    /// Runs `teardown` as the thread's last job, quits its loop and joins
    /// it. Idempotent; a second caller waits for the first to finish.
    func stop(_ teardown: @escaping @Sendable () -> Void = {}) {
        precondition(!isCurrent, "\(name) cannot stop itself")
        joinLock.withLock { _ in
            // The loop outlives the thread: it is unreffed in deinit, after the join.
            nonisolated(unsafe) let loop = loop
            let thread: UnsafeMutablePointer<GThread>? = lifecycle.withLock { thread in
                defer { thread = nil }
                if thread != nil {
                    attach {
                        teardown()
                        g_main_loop_quit(loop)
                    }
                }
                return thread
            }
            // Joins and drops the reference g_thread_try_new returned.
            if let thread { _ = g_thread_join(thread) }
        }
    }

    private func attach(_ work: @escaping @Sendable () -> Void) {
        let source = g_idle_source_new()
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, runJob, Unmanaged.passRetained(Job(work)).toOpaque(), releaseJob)
        g_source_attach(source, context)
        g_source_unref(source)
    }
}

/// A closure travelling to the GLib thread as source user data.
private final class Job {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}

/// Runs a job once; the source is then removed and `releaseJob` frees it.
private let runJob: GSourceFunc = { data in
    guard let data else { return gFalse }
    Unmanaged<Job>.fromOpaque(data).takeUnretainedValue().work()
    return gFalse  // G_SOURCE_REMOVE
}

/// Balances the `passRetained` of `GLibThread.attach`.
private let releaseJob: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<Job>.fromOpaque(data).release()
}

/// What the new thread needs, handed over retained through `g_thread_try_new`.
private final class ThreadStart {
    let context: OpaquePointer
    let loop: OpaquePointer
    init(context: OpaquePointer, loop: OpaquePointer) {
        self.context = context
        self.loop = loop
    }
}

private let glibThreadMain: GThreadFunc = { argument in
    // Balances the `passRetained` of `GLibThread.init`.
    let start = Unmanaged<ThreadStart>.fromOpaque(argument!).takeRetainedValue()
    g_main_context_push_thread_default(start.context)
    g_main_loop_run(start.loop)
    // Let GIO finish what it queued during teardown (destroy notifies of
    // signal subscriptions) before the context goes.
    while g_main_context_iteration(start.context, gFalse) != gFalse {}
    g_main_context_pop_thread_default(start.context)
    return nil
}

/// A result handed from the GLib thread to a waiting caller.
private final class SyncOutcome<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ result: T) {
        value.withLock { $0 = result }
        done.signal()
    }

    func wait() -> T {
        done.wait()
        return value.withLock { $0! }
    }
}

/// State that only its GLib thread may touch; every access checks it.
///
/// The value is handed over (`sending`) when the box is made, before any
/// job can run, and afterwards never leaves the thread.
final class ThreadConfined<Value>: @unchecked Sendable {
    // Unchecked: `value` is read and written on `thread` only, which
    // `access` enforces with a precondition.
    private let thread: GLibThread
    private let value: Value

    init(_ value: sending Value, on thread: GLibThread) {
        self.value = value
        self.thread = thread
    }

    /// Runs `body` with the value; only on the owning thread.
    func access<R>(_ body: (Value) throws -> R) rethrows -> R {
        precondition(thread.isCurrent, "state of \(thread.name) touched from another thread")
        return try body(value)
    }
}
