import DBus
import NotifyCore
import NotifyDesktop

/// Coalesces in-place updates of a flood's summary notification: at most
/// one update every half second per summary, the latest text winning. A
/// flood of thousands of events then costs the notification server a
/// handful of calls, while badges and handlers still count every event.
final class SummaryUpdates {
    static let interval: Microseconds = 500_000

    private let loop: EventLoop
    private let clock: any DaemonClock
    private var lastPosted: [NotificationKey: Microseconds] = [:]
    private var waiting: [NotificationKey: NotificationDispatcher.Popup] = [:]
    private var timers: [NotificationKey: EventLoop.TimerID] = [:]
    /// Posts a popup (the dispatcher's submit).
    private let post: (NotificationDispatcher.Popup) -> Void

    init(loop: EventLoop, clock: any DaemonClock, post: @escaping (NotificationDispatcher.Popup) -> Void) {
        self.loop = loop
        self.clock = clock
        self.post = post
    }

    /// Offers an update of a summary: posted now, or kept as the latest
    /// until its half second is up. With `settleFirst` (a server that
    /// loses popups replaced while queued), it is posted once, when the
    /// burst has been quiet for ``FloodGate/window``, and never replaced.
    func offer(_ popup: NotificationDispatcher.Popup, settleFirst: Bool = false) {
        let key = popup.request.key
        let now = clock.elapsed()
        forgetStale(at: now)
        if settleFirst {
            waiting[key] = popup
            if let timer = timers.removeValue(forKey: key) { loop.cancelTimer(timer) }
            timers[key] = loop.scheduleTimer(afterNanoseconds: UInt64(FloodGate.window) * 1_000) { [weak self] in
                self?.flush(key)
            }
            return
        }
        guard let last = lastPosted[key], now - last < Self.interval else {
            lastPosted[key] = now
            post(popup)
            return
        }
        waiting[key] = popup
        guard timers[key] == nil else { return }
        let delay = UInt64(last + Self.interval - now) * 1_000
        timers[key] = loop.scheduleTimer(afterNanoseconds: delay) { [weak self] in self?.flush(key) }
    }

    private func flush(_ key: NotificationKey) {
        timers[key] = nil
        guard let popup = waiting.removeValue(forKey: key) else { return }
        lastPosted[key] = clock.elapsed()
        post(popup)
    }

    /// Bursts long over need no memory of their last update.
    private func forgetStale(at now: Microseconds) {
        guard lastPosted.count > 32 else { return }
        lastPosted = lastPosted.filter { now - $0.value < 10 * Self.interval || waiting[$0.key] != nil }
    }
}
