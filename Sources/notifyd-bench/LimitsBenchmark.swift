import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// notifyd at its documented limits: what one item of each kind costs in
/// resident memory, the memory with every limit filled, and the memory once
/// clients have cleared what they can.
///
/// On a bus and a notifyd of their own (no system bus: the tasks' lock to
/// logind fails, and tasks work without it, as SPEC allows). The state is
/// built through the bus as clients build it, by ``LimitsClients`` (many
/// connections, blocking calls, so that one commit answers many) and, for
/// pending handlers, worker signals. Each phase reads `VmRSS` and `RssAnon`
/// before and after, after a pause for what follows the commits.
///
/// The phases, in order: kept state first (what no client can remove: fetch
/// schedules, fetch history, activations, the finished sessions kept), then
/// the state clients clear (pending handlers, badges, tasks, app states),
/// each filled to its limit; the peak; then the clearing, and memory after
/// it against memory before the clearable state was added.
struct LimitsBenchmark {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    /// Apps given a full fetch history (`FetchBook.historyKeptPerApp`
    /// fetches each); the limit, `FetchBook.maximumApps` (10,000 apps,
    /// 1,000,000 fetches), takes long through the bus.
    let fetchApps: Int
    /// Apps given a full activation history (`AppBook.activationsKeptPerApp`
    /// each); the limit is `AppBook.maximumApps` (10,000 apps, 10,000,000 activations).
    let activationApps: Int

    static let clients = 32
    /// After each phase, before memory is read: signals, dock updates, GIO lookups that follow the commits.
    static let settleSeconds = 1.5

    struct Phase {
        let name: String
        let items: Int
        let before: ProcessMemory
        let after: ProcessMemory
        let nanoseconds: UInt64
        /// What one item costs, in bytes.
        var residentPerItem: Double { Double(after.residentKilobytes - before.residentKilobytes) * 1024 / Double(items) }
        var anonymousPerItem: Double? {
            guard let from = before.anonymousKilobytes, let to = after.anonymousKilobytes else { return nil }
            return Double(to - from) * 1024 / Double(items)
        }
        var rate: Double { Double(items) / (Double(nanoseconds) / 1e9) }
    }

    struct Result {
        var phases: [Phase] = []
        var start: ProcessMemory?
        /// Once the kept state is built: what clearing must come back to.
        var kept: ProcessMemory?
        var filled: ProcessMemory?
        var cleared: ProcessMemory?
        /// After one more worker event: the finished sessions beyond those
        /// kept are forgotten only when an event is recorded.
        var afterEvent: ProcessMemory?
        /// One call past each limit, and its answer (the error name, or what was answered).
        var pastLimits: [(limit: String, answer: String)] = []
        var errors: [String] = []
        var fetchApps = 0
        var activationApps = 0
        var pendingAfterClearing = -1

        func phase(_ name: String) -> Phase? { phases.first { $0.name == name } }
    }

    func run() throws(BenchFailure) -> Result {
        // No system bus: the tasks' lock is never asked of the machine's logind.
        let daemon = try BenchDaemon(
            programs: programs, scratch: scratch, section: "limits", name: "The limits notifyd", systemBus: .absent)
        defer { daemon.stop() }
        return try daemon.measure { daemon throws(BenchFailure) in
            try measure(address: daemon.bus.address, pid: daemon.pid, connection: daemon.connection)
        }
    }

    /// The most pending handlers (100,000), each on a session of its own,
    /// the most per app (10,000), by worker signals (no popup, no badge, a
    /// deadline of a day).
    func populateHandlers(address: String, connection: DBusConnection) throws(BenchFailure) {
        try ListSessionsClient(connection: connection).populate(
            sessions: SessionBook.maximumPending, perApp: SessionBook.maximumPendingPerApp, address: address,
            extra: ["badge": .int32(0)],
            session: Self.handlerSession, app: { index, perApp in "org.notifyd.LimitsHandlers.A\(index / perApp)" })
    }

    /// The answer to one call past a limit: the error's name, or "answered".
    func answer(_ connection: DBusConnection, _ interface: String, _ member: String, _ arguments: [DBusValue]) -> String {
        do {
            _ = try connection.call(LimitsClients.call(interface, member, arguments), timeoutMilliseconds: 120_000)
            return "answered (no limit)"
        } catch let error as DBusError {
            return error.name.replacingPrefix(NotifydNames.errorPrefix)
        } catch {
            return "\(error)"
        }
    }

    static let quietEvent = DBusValue.vardict(["notify": .boolean(false), "badge": .int32(0), "timeout": .uint32(86_400)])

    static func fetchApp(_ index: Int) -> String { "org.notifyd.LimitsFetch.A\(index)" }
    static func activeApp(_ index: Int) -> String { "org.notifyd.LimitsActive.A\(index)" }
    static func badgeApp(_ index: Int) -> String { "org.notifyd.LimitsBadge.A\(index)" }
    static func taskApp(_ index: Int) -> String { "org.notifyd.LimitsTask.A\(index)" }
    static func handlerSession(_ index: Int) -> String { "limits-\(index)" }

    static func merged(_ first: LimitsClients.Outcome, _ second: LimitsClients.Outcome) -> LimitsClients.Outcome {
        var total = first
        total.answered += second.answered
        for (name, count) in second.errors { total.errors[name, default: 0] += count }
        if total.errorExample == nil { total.errorExample = second.errorExample }
        return total
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
