import DBus
import Glibc
import Synchronization

/// An ``EventLoop`` running on a POSIX thread of its own, for a service the
/// benchmark provides on the bus (the counting notification server) while
/// its main thread makes blocking calls. Plain pthreads: the benchmark does
/// without Foundation.
///
/// What `setUp` creates (e.g. a connection) is made, used and released on
/// the loop's thread only.
final class LoopThread: Sendable {
    private let status: LoopThreadStatus
    private let thread: pthread_t
    private let loop: EventLoop

    /// Starts the thread, runs `setUp` there with the new loop, and returns
    /// once the loop is about to run (or throws what `setUp` threw).
    ///
    /// - Parameter setUp: returns what must live as long as the loop runs.
    init(setUp: @escaping @Sendable (EventLoop) throws -> AnyObject) throws(BenchFailure) {
        let status = LoopThreadStatus()
        let body = ThreadBody {
            let loop: EventLoop
            let keptAlive: AnyObject
            do {
                loop = try EventLoop()
                keptAlive = try setUp(loop)
            } catch {
                status.state.withLock { $0 = .failed("\(error)") }
                return
            }
            status.state.withLock { $0 = .running(loop) }
            loop.run()
            withExtendedLifetime(keptAlive) {}
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(body).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw .system("cannot start a thread", errno: created)
        }
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while true {
            switch status.state.withLock({ $0 }) {
            case .running(let loop):
                self.status = status
                self.thread = thread
                self.loop = loop
                return
            case .failed(let reason):
                pthread_join(thread, nil)
                throw BenchFailure(reason)
            case .starting, .stopped:
                guard MonotonicClock.nanoseconds() < deadline else {
                    throw BenchFailure("a loop thread did not start within 10 s.")
                }
                usleep(1_000)
            }
        }
    }

    /// Stops the loop and waits for the thread to end (what `setUp` made is
    /// released there). Idempotent.
    func stop() {
        let running = status.state.withLock { state in
            guard case .running = state else { return false }
            state = .stopped
            return true
        }
        guard running else { return }
        loop.stop()
        pthread_join(thread, nil)
    }

    deinit { stop() }
}

/// Where a ``LoopThread`` is in its life, shared by both threads.
private final class LoopThreadStatus: Sendable {
    enum State {
        case starting
        case running(EventLoop)
        case failed(String)
        case stopped
    }

    let state = Mutex<State>(.starting)
}

/// The closure a new thread runs, carried through `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}
