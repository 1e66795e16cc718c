import Glibc

/// A failure of the test harness (or the benchmark's) itself: not a
/// finding about notifyd.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Waits (bounded) until `condition` holds, checking every
/// `intervalMicroseconds` (20 ms unless told): a barrier on what the
/// caller can observe, never a fixed sleep.
///
/// - Throws: ``TestFailure`` naming `what` when `seconds` pass first, or
///   what `condition` threw.
public func waitUntil(
    _ what: String, seconds: Double = 20, intervalMicroseconds: UInt32 = 20_000, _ condition: () throws -> Bool
) throws {
    let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, seconds) * 1e9)
    while try !condition() {
        guard MonotonicClock.nanoseconds() < deadline else { throw TestFailure("timed out waiting until \(what)") }
        usleep(intervalMicroseconds)
    }
}

/// A plain POSIX thread running one closure (no Foundation, no Dispatch:
/// the thread blocks where its closure blocks and nowhere else).
public struct PosixThread: Sendable {
    private let thread: pthread_t

    /// Starts `body` on a new thread.
    ///
    /// - Throws: ``TestFailure`` when the thread cannot be created.
    public init(_ body: @escaping @Sendable () -> Void) throws(TestFailure) {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw TestFailure("cannot start a thread: \(String(cString: strerror(created)))")
        }
        self.thread = thread
    }

    /// Waits for the thread to end.
    public func join() {
        pthread_join(thread, nil)
    }
}

/// The closure a new thread runs, carried through `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
