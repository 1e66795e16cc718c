import DBus
import Foundation

/// An ``EventLoop`` running on a thread of its own, for tests that serve
/// and call from one process.
public final class LoopThread: @unchecked Sendable {
    public let loop: EventLoop
    private let thread: Thread
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stopLock = NSLock()
    private var stopped = false

    public init() throws {
        let box = LoopBox()
        let started = self.started
        let finished = self.finished
        thread = Thread {
            box.loop = try? EventLoop()
            started.signal()
            box.loop?.run()
            box.loop = nil
            finished.signal()
        }
        thread.start()
        started.wait()
        guard let loop = box.loop else { throw TestFailure("cannot create an event loop") }
        self.loop = loop
    }

    deinit { stop() }

    /// Stops the loop and waits for its thread to end.
    public func stop() {
        stopLock.lock()
        defer { stopLock.unlock() }
        guard !stopped else { return }
        stopped = true
        loop.stop()
        finished.wait()
    }

    /// Runs `body` on the loop thread and returns its result.
    public func sync<T>(_ body: @escaping () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
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

private final class LoopBox: @unchecked Sendable {
    var loop: EventLoop?
}
