import DBus
import NotifyCore

/// One event-loop timer for the earliest pending deadline, re-armed after
/// every commit. With nothing pending there is no timer at all, so an idle
/// daemon never wakes up. The deadline is wall-clock time; the loop's
/// timer runs on elapsed time, and the daemon moves deadlines when the
/// wall clock is set.
final class DeadlineTimer {
    private let loop: EventLoop
    private let clock: any WallClock
    private var armed: (deadline: Microseconds, timer: EventLoop.TimerID)?

    init(loop: EventLoop, clock: any WallClock) {
        self.loop = loop
        self.clock = clock
    }

    /// Arms the timer for `deadline` (nil: disarms it), to run `onFire`
    /// then; a deadline already armed is left as it is.
    func follow(_ deadline: Microseconds?, onFire: @escaping () -> Void) {
        guard armed?.deadline != deadline else { return }
        if let armed { loop.cancelTimer(armed.timer) }
        armed = nil
        guard let deadline else { return }
        let delay = max(0, deadline - clock.now())
        let timer = loop.scheduleTimer(afterNanoseconds: UInt64(delay) * 1_000) { [weak self] in
            self?.armed = nil
            onFire()
        }
        armed = (deadline, timer)
    }
}
