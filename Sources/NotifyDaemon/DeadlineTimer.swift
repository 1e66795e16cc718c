import DBus
import NotifyCore

/// One event-loop timer for the earliest pending deadline, re-armed after
/// every commit. With nothing pending there is no timer at all, so an idle
/// daemon never wakes up.
final class DeadlineTimer {
    private let loop: EventLoop
    private let clock: any WallClock
    /// What runs when the deadline comes.
    var onFire: () -> Void
    private var armed: (deadline: Microseconds, timer: EventLoop.TimerID)?

    init(loop: EventLoop, clock: any WallClock, onFire: @escaping () -> Void) {
        self.loop = loop
        self.clock = clock
        self.onFire = onFire
    }

    /// Arms the timer for `deadline` (nil: disarms it).
    func follow(_ deadline: Microseconds?) {
        guard armed?.deadline != deadline else { return }
        if let armed { loop.cancelTimer(armed.timer) }
        armed = nil
        guard let deadline else { return }
        let delay = max(0, deadline - clock.now())
        let timer = loop.scheduleTimer(afterNanoseconds: UInt64(delay) * 1_000) { [weak self] in
            self?.armed = nil
            self?.onFire()
        }
        armed = (deadline, timer)
    }
}
