public import DBus
import Glibc
import Synchronization

/// An ``EventLoop`` on a thread of its own, for a process that serves on
/// the bus and calls it too: a test, or the benchmark's notification
/// server while its main thread makes blocking calls.
///
/// A ``DBus/EventLoopThread`` (the daemon's, so tests drive the same
/// thread code) plus two ways in: ``sync(_:)`` runs a closure there and
/// waits for its result, and ``init(name:setUp:)`` makes what must live as
/// long as the loop (a connection) there and releases it there on
/// ``stop()``. No Foundation, no Dispatch: the benchmark and the fuzzer
/// link this.
public final class LoopThread: Sendable {
    /// The loop; from other threads, only ``sync(_:)``, ``EventLoop/execute(_:)``
    /// and ``EventLoop/stop()``.
    public let loop: EventLoop
    private let thread: EventLoopThread
    /// What `setUp` made.
    private let keptAlive = LoopOwned<AnyObject>()
    private let stopped = Atomic<Bool>(false)

    /// Starts the thread with an idle loop.
    public init(name: String = "loop-thread") throws {
        thread = try EventLoopThread(name: name)
        loop = thread.loop
    }

    /// Starts the thread and runs `setUp` there with the loop; what it
    /// returns lives until ``stop()``, which releases it on the loop's
    /// thread before the loop ends. Throws what `setUp` threw.
    public convenience init(name: String = "loop-thread", setUp: @escaping (EventLoop) throws -> AnyObject) throws {
        try self.init(name: name)
        let loop = self.loop
        do {
            let keptAlive = self.keptAlive
            try sync { keptAlive.value = try setUp(loop) }
        } catch {
            thread.stop()
            throw error
        }
    }

    deinit { stop() }

    /// Releases what `setUp` made (on the loop's thread), stops the loop
    /// and waits for its thread to end. Idempotent; not from the loop's thread.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        // Not `self` in the closure: stop() runs from deinit too.
        let keptAlive = self.keptAlive
        try? sync { keptAlive.value = nil }
        thread.stop()
    }

    /// Runs `body` on the loop's thread and returns its result (or throws
    /// its error). Not from the loop's own thread.
    public func sync<T>(_ body: @escaping () throws -> T) throws -> T {
        let done = Semaphore()
        nonisolated(unsafe) var result: Result<T, any Error>?
        nonisolated(unsafe) let work = body
        loop.execute {
            result = Result { try work() }
            done.signal()
        }
        done.wait()
        return try result!.get()
    }
}

/// A value made, used and released on a loop's thread only, held by an
/// object other threads share.
public final class LoopOwned<Value>: @unchecked Sendable {
    // Unchecked: `value` is touched on the loop's thread only.
    public var value: Value?
    public init() {}
}
