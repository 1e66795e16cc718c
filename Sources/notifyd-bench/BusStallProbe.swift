import DBus
import Glibc
import NotifyTestingCore
import Synchronization

/// How long a loop keeps work waiting: every 5 ms a probe thread posts a
/// no-op to the loop and the longest delay before it ran is kept. On a bus
/// thread that delay is what a D-Bus call waits before notifyd reads it.
final class BusStallProbe: Sendable {
    private let probe: EventLoopThread
    private let state = State()

    /// What the probe's thread and the target's share.
    private final class State: @unchecked Sendable {
        // Unchecked: `pendingTick` is touched only on the probe's loop.
        let longest = Mutex<UInt64>(0)
        let running = Atomic<Bool>(true)
        /// The timer of the next tick: its closure holds both loops, so it
        /// is cancelled before the probe's loop stops (else a cycle).
        var pendingTick: EventLoop.TimerID?
    }

    /// Starts probing `target`.
    init(_ target: EventLoop) throws(BenchFailure) {
        do {
            probe = try EventLoopThread(name: "bench-probe")
        } catch {
            throw BenchFailure("cannot start the probe thread: \(error)")
        }
        let state = self.state
        let loop = probe.loop
        probe.loop.execute {
            func tick() {
                guard state.running.load(ordering: .relaxed) else { return }
                let sent = MonotonicClock.nanoseconds()
                target.execute {
                    let delay = MonotonicClock.nanoseconds() - sent
                    state.longest.withLock { $0 = max($0, delay) }
                }
                state.pendingTick = loop.scheduleTimer(afterNanoseconds: 5_000_000) { tick() }
            }
            tick()
        }
    }

    /// Stops probing and returns the longest delay seen, in nanoseconds.
    func finish() -> UInt64 {
        let stopped = Semaphore()
        let state = self.state
        let loop = probe.loop
        probe.loop.execute {
            state.running.store(false, ordering: .relaxed)
            if let tick = state.pendingTick { loop.cancelTimer(tick) }
            state.pendingTick = nil
            stopped.signal()
        }
        stopped.wait()
        probe.stop()
        return state.longest.withLock { $0 }
    }
}
