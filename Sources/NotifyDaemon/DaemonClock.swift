public import DBus
import Glibc
public import NotifyCore

/// Where the daemon reads the time, in microseconds, and how it waits for
/// a deadline.
///
/// Two clocks: ``now()``, wall-clock time (Unix), for what is stored and
/// must survive a restart (deadlines, event times) and for times of day;
/// and ``elapsed()``, time since boot with time asleep included, for
/// intervals (throttles, flood windows) that must not stall or rush when
/// someone sets the clock. ``SystemClock`` is the real one; a test harness
/// injects one it moves by hand (NotifyTesting's `ManualClock`).
public protocol DaemonClock: AnyObject {
    /// Wall-clock time, Unix microseconds.
    func now() -> Microseconds
    /// Elapsed time (`CLOCK_BOOTTIME`), microseconds: only differences mean anything.
    func elapsed() -> Microseconds
    /// The step of the wall clock since the last one taken, if any: from
    /// then on ``now()`` follows it, and the daemon moves its stored
    /// deadlines by as much.
    func takeStep() -> Microseconds?
    /// Runs `body` on `loop` once `delay` µs of elapsed time have passed
    /// (time asleep included); the wake can be cancelled until then.
    func wake(after delay: Microseconds, on loop: EventLoop, _ body: @escaping () -> Void) -> ClockWake
}

/// A wake scheduled by a ``DaemonClock``: cancel it to drop it.
public final class ClockWake {
    private var cancelAction: (() -> Void)?

    /// `cancel` drops the wake; it runs at most once.
    public init(cancel: @escaping () -> Void) {
        cancelAction = cancel
    }

    /// Drops the wake if it has not run.
    public func cancel() {
        cancelAction?()
        cancelAction = nil
    }
}

/// The daemon's clock: elapsed time plus the wall clock's offset as of the
/// last step taken, so that the wall times it gives jump only when the
/// daemon has moved its stored deadlines with the step (``takeStep()``).
/// Between a step of the system clock and its taking, times stay in the
/// old frame, and the shift then moves them with everything else.
public final class SystemClock: DaemonClock {
    private var steps: ClockStepDetector

    public init() {
        steps = ClockStepDetector(wall: Self.read(CLOCK_REALTIME), elapsed: Self.read(CLOCK_BOOTTIME))
    }

    public func now() -> Microseconds { Self.read(CLOCK_BOOTTIME) &+ steps.offset }

    public func elapsed() -> Microseconds { Self.read(CLOCK_BOOTTIME) }

    /// A timer of the loop, which runs on `CLOCK_BOOTTIME`.
    public func wake(after delay: Microseconds, on loop: EventLoop, _ body: @escaping () -> Void) -> ClockWake {
        let timer = loop.scheduleTimer(afterNanoseconds: UInt64(max(0, delay)) * 1_000, body)
        return ClockWake { loop.cancelTimer(timer) }
    }

    /// The step of the system's wall clock since the last one taken, if
    /// any (a second or more): from now on ``now()`` follows it, and the
    /// caller moves what it keeps in wall time by as much.
    public func takeStep() -> Microseconds? {
        steps.step(wall: Self.read(CLOCK_REALTIME), elapsed: Self.read(CLOCK_BOOTTIME))
    }

    private static func read(_ clock: clockid_t) -> Microseconds {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Microseconds(ts.tv_sec) * 1_000_000 + Microseconds(ts.tv_nsec / 1_000)
    }
}
