import Glibc
import NotifyCore

/// Where the daemon reads the time: Unix microseconds. Deadlines are kept
/// in wall-clock time because they must survive a restart; tests inject a
/// clock of their own.
protocol WallClock: AnyObject {
    func now() -> Microseconds
}

/// The system's real-time clock.
final class SystemClock: WallClock {
    func now() -> Microseconds {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Microseconds(ts.tv_sec) * 1_000_000 + Microseconds(ts.tv_nsec / 1_000)
    }
}
