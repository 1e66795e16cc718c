import CLinux
import Glibc

extension EventLoop {
    /// Calls `handler` on the loop thread whenever the system's wall clock
    /// is set (`settimeofday`, `clock_settime`, NTP stepping it, a time
    /// namespace aside), through a `CLOCK_REALTIME` timerfd armed far in
    /// the future with `TFD_TIMER_CANCEL_ON_SET`: it costs no wake-up
    /// until the clock is set.
    public func watchWallClockSet(_ handler: @escaping () -> Void) throws(DBusError) {
        let fd = try SystemCall.run("timerfd_create(CLOCK_REALTIME)") {
            timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC) | Int32(TFD_NONBLOCK))
        }
        do throws(DBusError) {
            try Self.armForClockSet(fd)
            _ = try addDescriptor(fd, events: .readable) { _ in
                // ECANCELED: the clock was set. Armed again for the next time.
                _ = try? SystemCall.readCounter(fd, "read of the wall-clock timerfd")
                _ = try? Self.armForClockSet(fd)
                handler()
            }
        } catch {
            close(fd)
            throw error
        }
    }

    /// A century from now: never expires, only cancels.
    private static func armForClockSet(_ fd: Int32) throws(DBusError) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var setting = itimerspec()
        setting.it_value.tv_sec = now.tv_sec + 100 * 365 * 86_400
        try SystemCall.run("timerfd_settime(TFD_TIMER_CANCEL_ON_SET)") {
            timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &setting, nil)
        }
    }
}
