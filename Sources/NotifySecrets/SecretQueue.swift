import CLibsecret
import Synchronization

/// A GLib main context shared between threads. GMainContext is thread-safe
/// (GLib documents `g_main_context_wakeup` for exactly this use), so the
/// unchecked conformance covers only the pointer's reference count, which
/// this class owns.
final class SharedMainContext: @unchecked Sendable {
    let raw: OpaquePointer

    init() {
        raw = g_main_context_new()
    }

    deinit {
        g_main_context_unref(raw)
    }
}

/// The keeper's work, handed from any thread to the keeper's. The thread
/// sleeps in its context's poll while there is none; adding a job wakes it
/// (GLib's wakeup stays signalled until the next iteration, so a job added
/// just before the thread sleeps is never missed).
final class SecretQueue: Sendable {
    let context = SharedMainContext()
    private let state = Mutex(State())

    private struct State {
        var jobs: [SecretJob] = []
        var stopping = false
    }

    /// What the thread should do next.
    enum Next {
        case perform(SecretJob)
        case sleep
        case stop
    }

    /// Queues `job`; false when the keeper is stopping (the caller answers it).
    func add(_ job: SecretJob) -> Bool {
        let added = state.withLock { state in
            guard !state.stopping else { return false }
            state.jobs.append(job)
            return true
        }
        if added { g_main_context_wakeup(context.raw) }
        return added
    }

    /// The next job, or whether to sleep or stop.
    func next() -> Next {
        state.withLock { state in
            if state.stopping { return .stop }
            guard !state.jobs.isEmpty else { return .sleep }
            return .perform(state.jobs.removeFirst())
        }
    }

    /// Refuses further jobs, wakes the thread, and returns the jobs it had not started.
    func stop() -> [SecretJob] {
        let left = state.withLock { state in
            state.stopping = true
            defer { state.jobs = [] }
            return state.jobs
        }
        g_main_context_wakeup(context.raw)
        return left
    }
}

/// What the keeper's thread runs, carried through `g_thread_try_new`'s data pointer.
final class SecretWorker: Sendable {
    let queue: SecretQueue
    let busAddress: String?
    let timeoutSeconds: Int

    init(queue: SecretQueue, busAddress: String?, timeoutSeconds: Int) {
        self.queue = queue
        self.busAddress = busAddress
        self.timeoutSeconds = timeoutSeconds
    }

    /// The thread's body: loads libsecret (`dlopen`, here rather than on
    /// the caller's thread), then runs jobs one at a time until the keeper
    /// stops. Without libsecret every job is answered `.unavailable`, saying why.
    func run() {
        let context = queue.context.raw
        g_main_context_push_thread_default(context)
        let link =
            notifyd_secret_load() == 1
            ? SecretServiceLink(busAddress: busAddress, context: context, timeoutSeconds: timeoutSeconds) : nil
        loop: while true {
            switch queue.next() {
            case .perform(let job):
                if let link { perform(job, with: link) } else { job.abandon(reason: Self.unloadedReason) }
            case .sleep: g_main_context_iteration(context, 1)
            case .stop: break loop
            }
        }
        link?.close()
        g_main_context_pop_thread_default(context)
    }

    /// Why there is no Secret Service client: libsecret could not be loaded.
    private static var unloadedReason: String {
        notifyd_secret_load_error().map { String(cString: $0) } ?? "libsecret could not be loaded"
    }

    private func perform(_ job: SecretJob, with link: SecretServiceLink) {
        switch job {
        case .store(let password, let item, let label, let done): done(link.store(password, item: item, label: label))
        case .lookup(let item, let done): done(link.lookup(item))
        case .remove(let item, let done): done(link.remove(item))
        }
    }
}
