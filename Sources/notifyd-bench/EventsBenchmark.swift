import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// A burst of worker signals (``EventBurst``): how fast notifyd stores them
/// durably against a bare receiver of the same burst and against one that
/// also emits the two signals notifyd emits per event, whether any is lost,
/// the badge they add up to, the popups they cost, and the memory each
/// pending handler takes.
///
/// The time runs from the first send until notifyd has stored them all:
/// the Daemon property `PendingHandlers` is polled until it reaches the
/// count, then `GetBadge` is called once. The property is read from memory
/// and answered at once, possibly before the batch in progress is
/// committed; GetBadge is answered only after that commit. So when its
/// reply arrives, every counted handler is on disk. (notifyd emits a
/// batch's signals after its replies, so the last batch's may still be on
/// their way then; the emitting receiver's time includes all of its own.)
struct EventsBenchmark {
    let burst: EventBurst
    /// notifyd, its bus and the benchmark's connection (blocking calls only).
    let daemon: BenchDaemon
    let server: RecordingNotificationServer
    let baseline: BareReceiverBaseline

    /// How long notifyd may take to store the burst.
    static let storeWaitSeconds = 60.0
    /// The pause before the counts and memory are read: the flood window
    /// (2 s) closes, the last summary update goes out.
    static let settleSeconds = 3.0
    /// Runs of each receiver; the fastest of each is its baseline.
    static let baselineRuns = 2

    struct Result {
        let count: Int
        let serverName: String
        let baseline: [BareReceiverBaseline.Run]
        /// The runs of the receiver that also emits notifyd's signals.
        let emittingBaseline: [BareReceiverBaseline.Run]
        let timing: EventBurst.Timing
        /// From the first send to the poll that read `PendingHandlers` = count; nil if it never did.
        let counted: UInt64?
        /// From the first send to the reply of GetBadge after that; nil if not all were stored.
        let stored: UInt64?
        let polls: Int
        /// `PendingHandlers` after settling.
        let pending: Int
        let badge: UInt32
        let popups: RecordingNotificationServer.Counts
        let before: ProcessMemory
        let after: ProcessMemory
        /// CPU time notifyd (all threads) and its bus used from the first send until all were stored.
        let notifydCPU: UInt64?
        let busCPU: UInt64?

        /// The fastest bare receiver run.
        var fastestBaseline: BareReceiverBaseline.Run? { baseline.min { $0.nanoseconds < $1.nanoseconds } }
        /// The fastest emitting receiver run.
        var fastestEmittingBaseline: BareReceiverBaseline.Run? {
            emittingBaseline.min { $0.nanoseconds < $1.nanoseconds }
        }
    }

    func run() throws(BenchFailure) -> Result {
        let serverName = try waitForNotificationServer()
        let runs = try baseline.measure(runs: Self.baselineRuns)
        let (notifyd, bus) = (daemon.notifyd, daemon.bus)
        let memory = IdleBenchmark(pid: notifyd.pid)
        let before = try memory.measureMemory()
        let popupsBefore = server.counts
        let messages = try burst.messages()
        let sender = try EventBurst.sender(address: bus.address)
        let cpuBefore = (notifyd.process?.cpuNanoseconds, bus.process.cpuNanoseconds)

        let timing = try EventBurst.send(messages, on: sender)
        var counted: UInt64?
        var polls = 0
        let deadline = timing.start + UInt64(Self.storeWaitSeconds * 1e9)
        while MonotonicClock.nanoseconds() < deadline {
            polls += 1
            // A poll waits behind the burst in notifyd's queue: allow it the whole wait.
            if try pendingHandlers(timeoutMilliseconds: Self.milliseconds(until: deadline)) >= burst.count {
                counted = MonotonicClock.nanoseconds() - timing.start
                break
            }
            if daemon.hasEnded { throw BenchFailure("notifyd ended while storing the events.") }
            usleep(1_000)
        }
        var stored: UInt64?
        if counted != nil {
            _ = try badge(timeoutMilliseconds: Self.milliseconds(until: deadline))  // answered after the commit
            stored = MonotonicClock.nanoseconds() - timing.start
        }
        let cpuAfter = (notifyd.process?.cpuNanoseconds, bus.process.cpuNanoseconds)
        func used(_ before: UInt64?, _ after: UInt64?) -> UInt64? {
            guard let before, let after, after >= before else { return nil }
            return after - before
        }
        withExtendedLifetime(sender) {}

        MonotonicClock.sleep(seconds: Self.settleSeconds)
        return Result(
            count: burst.count, serverName: serverName, baseline: runs.receiving,
            emittingBaseline: runs.emitting, timing: timing, counted: counted, stored: stored,
            polls: polls, pending: try pendingHandlers(), badge: try badge(), popups: server.counts - popupsBefore,
            before: before, after: try memory.measureMemory(),
            notifydCPU: used(cpuBefore.0, cpuAfter.0), busCPU: used(cpuBefore.1, cpuAfter.1))
    }

    /// Waits (at most 10 s) until notifyd has found the counting server.
    private func waitForNotificationServer() throws(BenchFailure) -> String {
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while true {
            if case .string(let name) = try daemonProperty("NotificationServer"), !name.isEmpty { return name }
            guard MonotonicClock.nanoseconds() < deadline else {
                throw BenchFailure("notifyd did not find the counting notification server within 10 s.")
            }
            usleep(5_000)
        }
    }

    /// What is left of the wait, for a call's timeout (libdbus's default is 25 s).
    private static func milliseconds(until deadline: UInt64) -> Int32 {
        let now = MonotonicClock.nanoseconds()
        return deadline > now ? Int32(min((deadline - now) / 1_000_000 + 1, UInt64(Int32.max))) : 1
    }

    private func pendingHandlers(timeoutMilliseconds: Int32 = -1) throws(BenchFailure) -> Int {
        try daemon.connection.notifydPendingHandlers(timeoutMilliseconds: timeoutMilliseconds)
    }

    private func daemonProperty(_ name: String) throws(BenchFailure) -> DBusValue {
        try daemon.connection.notifydProperty(name)
    }

    private func badge(timeoutMilliseconds: Int32 = -1) throws(BenchFailure) -> UInt32 {
        try daemon.connection.notifydBadge(EventBurst.appID, timeoutMilliseconds: timeoutMilliseconds)
    }
}
