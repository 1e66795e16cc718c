import DBus
import NotifyCore

/// One event-loop timer for the earliest pending deadline, re-armed after
/// every commit. With nothing pending there is no timer at all, so an idle
/// daemon never wakes up. The deadline is wall-clock time; the loop's
/// timer runs on elapsed time, and the daemon moves deadlines when the
/// wall clock is set. The clock arms the wake (a loop timer, or a test's
/// hand-moved clock).
final class DeadlineTimer {
    private let loop: EventLoop
    private let clock: any DaemonClock
    private var armed: (deadline: Microseconds, wake: ClockWake)?

    init(loop: EventLoop, clock: any DaemonClock) {
        self.loop = loop
        self.clock = clock
    }

    /// Arms the timer for `deadline` (nil: disarms it), to run `onFire`
    /// then; a deadline already armed is left as it is.
    func follow(_ deadline: Microseconds?, onFire: @escaping () -> Void) {
        guard armed?.deadline != deadline else { return }
        armed?.wake.cancel()
        armed = nil
        guard let deadline else { return }
        let wake = clock.wake(after: deadline - clock.now(), on: loop) { [weak self] in
            self?.armed = nil
            onFire()
        }
        armed = (deadline, wake)
    }
}
