public import DBus
public import NotifyCore
public import NotifyDaemon
import Synchronization

/// A ``NotifyDaemon/DaemonClock`` that a test moves by hand: time passes
/// only with ``advance(by:)`` (asleep or awake, as `CLOCK_BOOTTIME`), and
/// the wall clock is set with ``setWallClock(by:)``. Wakes that come due
/// run on the loop that asked for them. Safe from any thread: the daemon
/// reads it on its loop while the test moves it.
public final class ManualClock: DaemonClock, Sendable {
    private struct Wake: @unchecked Sendable {
        // Unchecked: `body` is only ever run on `loop`, through execute.
        let id: UInt64
        let due: Microseconds
        let loop: EventLoop
        let body: () -> Void
    }

    private struct Time {
        var elapsed: Microseconds = 0
        /// The wall clock minus elapsed time, as the system has it.
        var offset: Microseconds
        /// The offset as of the last step taken: what ``now()`` follows.
        var takenOffset: Microseconds
        var wakes: [Wake] = []
        var nextWake: UInt64 = 1
    }

    private let time: Mutex<Time>

    /// Starts at wall-clock time `wall` (Unix µs; 2027-01-15 unless told).
    public init(wall: Microseconds = 1_800_000_000_000_000) {
        time = Mutex(Time(offset: wall, takenOffset: wall))
    }

    public func now() -> Microseconds { time.withLock { $0.elapsed &+ $0.takenOffset } }

    public func elapsed() -> Microseconds { time.withLock { $0.elapsed } }

    /// The wall clock as the system has it (it leads ``now()`` until the
    /// daemon takes a step).
    public var systemWallClock: Microseconds { time.withLock { $0.elapsed &+ $0.offset } }

    public func takeStep() -> Microseconds? {
        time.withLock { time in
            let step = time.offset - time.takenOffset
            guard step != 0 else { return nil }
            time.takenOffset = time.offset
            return step
        }
    }

    public func wake(after delay: Microseconds, on loop: EventLoop, _ body: @escaping () -> Void) -> ClockWake {
        let id = time.withLock { time in
            let id = time.nextWake
            time.nextWake += 1
            time.wakes.append(Wake(id: id, due: time.elapsed &+ max(0, delay), loop: loop, body: body))
            return id
        }
        if delay <= 0 { runDue() }
        return ClockWake { [weak self] in self?.time.withLock { $0.wakes.removeAll { $0.id == id } } }
    }

    /// Lets `microseconds` pass (on both clocks); the wakes now due run on
    /// their loops, in the order they come due.
    public func advance(by microseconds: Microseconds) {
        time.withLock { $0.elapsed &+= max(0, microseconds) }
        runDue()
    }

    /// Sets the system's wall clock by `step` µs (negative: back), as
    /// `date -s` would: elapsed time does not move. The daemon sees it on
    /// its next turn of the loop.
    public func setWallClock(by step: Microseconds) {
        time.withLock { $0.offset &+= step }
    }

    /// How many wakes are armed: 0 when the daemon waits for nothing.
    public var armedWakes: Int { time.withLock { $0.wakes.count } }

    private func runDue() {
        let due = time.withLock { time in
            let due = time.wakes.filter { $0.due <= time.elapsed }.sorted { ($0.due, $0.id) < ($1.due, $1.id) }
            time.wakes.removeAll { $0.due <= time.elapsed }
            return due
        }
        for wake in due { wake.loop.execute { wake.body() } }
    }
}
