import Glibc
import NotifyCore

/// Where the daemon reads the time, in microseconds.
///
/// Two clocks: ``now()``, wall-clock time (Unix), for what is stored and
/// must survive a restart (deadlines, event times) and for times of day;
/// and ``elapsed()``, time since boot with time asleep included, for
/// intervals (throttles, flood windows) that must not stall or rush when
/// someone sets the clock. Tests inject clocks of their own.
protocol WallClock: AnyObject {
    /// Wall-clock time, Unix microseconds.
    func now() -> Microseconds
    /// Elapsed time (`CLOCK_BOOTTIME`), microseconds: only differences mean anything.
    func elapsed() -> Microseconds
}

/// The daemon's clock: elapsed time plus the wall clock's offset as of the
/// last step taken, so that the wall times it gives jump only when the
/// daemon has moved its stored deadlines with the step (``takeStep()``).
/// Between a step of the system clock and its taking, times stay in the
/// old frame, and the shift then moves them with everything else.
final class SystemClock: WallClock {
    private var steps: ClockStepDetector

    init() {
        steps = ClockStepDetector(wall: Self.read(CLOCK_REALTIME), elapsed: Self.read(CLOCK_BOOTTIME))
    }

    func now() -> Microseconds { Self.read(CLOCK_BOOTTIME) &+ steps.offset }

    func elapsed() -> Microseconds { Self.read(CLOCK_BOOTTIME) }

    /// The step of the system's wall clock since the last one taken, if
    /// any (a second or more): from now on ``now()`` follows it, and the
    /// caller moves what it keeps in wall time by as much.
    func takeStep() -> Microseconds? {
        steps.step(wall: Self.read(CLOCK_REALTIME), elapsed: Self.read(CLOCK_BOOTTIME))
    }

    private static func read(_ clock: clockid_t) -> Microseconds {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Microseconds(ts.tv_sec) * 1_000_000 + Microseconds(ts.tv_nsec / 1_000)
    }
}
