import DBus
import Glibc
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
    /// Apps given a full fetch history (``historyPerApp`` fetches each);
    /// the limit is 10,000 apps (1,000,000 fetches), which takes long through the bus.
    let fetchApps: Int
    /// Apps given a full activation history (``activationsPerApp`` each);
    /// the limit is 10,000 apps (10,000,000 activations).
    let activationApps: Int

    // The documented limits (NotifyCore's constants, spelled out: the bench depends on the bus alone).
    static let appLimit = 10_000
    static let historyPerApp = 100
    static let activationsPerApp = 1_000
    static let pendingLimit = 100_000
    static let pendingPerApp = 10_000
    static let finishedKept = 1_000
    static let tasksPerApp = 16
    static let taskLimit = 4_096

    static let clients = 32
    /// After each phase, before memory is read: signals, dock updates, GIO lookups that follow the commits.
    static let settleSeconds = 1.5

    struct Phase {
        let name: String
        let items: Int
        let before: IdleBenchmark.Memory
        let after: IdleBenchmark.Memory
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
        var start: IdleBenchmark.Memory?
        /// Once the kept state is built: what clearing must come back to.
        var kept: IdleBenchmark.Memory?
        var filled: IdleBenchmark.Memory?
        var cleared: IdleBenchmark.Memory?
        /// After one more worker event: the finished sessions beyond those
        /// kept are forgotten only when an event is recorded.
        var afterEvent: IdleBenchmark.Memory?
        /// One call past each limit, and its answer (the error name, or what was answered).
        var pastLimits: [(limit: String, answer: String)] = []
        var errors: [String] = []
        var fetchApps = 0
        var activationApps = 0
        var pendingAfterClearing = -1

        func phase(_ name: String) -> Phase? { phases.first { $0.name == name } }
    }

    func run() throws(BenchFailure) -> Result {
        let directory = ScratchDirectory(existing: try scratch.makeSubdirectory("limits"))
        let bus = try PrivateBus(
            dbusDaemon: programs.dbusDaemon, scratch: directory, environment: ChildEnvironment.inherited(overriding: [:]))
        defer { bus.stop() }
        // No system bus: the tasks' lock is never asked of the machine's logind.
        let notifyd = try NotifydProcess(
            notifyd: programs.notifyd, stateDirectory: try directory.makeSubdirectory("state"),
            logPath: directory.appending("notifyd.log"),
            environment: ChildEnvironment.inherited(overriding: [
                "DBUS_SESSION_BUS_ADDRESS": bus.address,
                "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.appending("no-system-bus"))",
            ]))
        defer { notifyd.stop() }
        let connection: DBusConnection
        do {
            connection = try DBusConnection.connect(to: .address(bus.address), private: true)
        } catch {
            throw BenchFailure("cannot connect to the limits section's bus: \(error)")
        }
        do throws(BenchFailure) {
            try notifyd.waitUntilServing(on: connection)
            return try measure(address: bus.address, pid: notifyd.pid, connection: connection)
        } catch {
            guard let ended = notifyd.process.poll() else { throw error }
            throw BenchFailure("\(error)\nThe limits notifyd ended with \(ended). \(notifyd.logTail())")
        }
    }

    // MARK: The phases

    private func measure(address: String, pid: pid_t, connection: DBusConnection) throws(BenchFailure) -> Result {
        let memory = IdleBenchmark(pid: pid)
        var result = Result()
        result.fetchApps = fetchApps
        result.activationApps = activationApps
        let clients = try LimitsClients(count: Self.clients, address: address)
        defer { clients.close() }
        MonotonicClock.sleep(seconds: Self.settleSeconds)
        result.start = try memory.measureMemory()

        func phase(_ name: String, items: Int, _ body: () throws(BenchFailure) -> LimitsClients.Outcome?) throws(BenchFailure) {
            Progress.say("limits: \(name), \(items)")
            let before = try memory.measureMemory()
            let start = MonotonicClock.nanoseconds()
            if let outcome = try body(), !outcome.errors.isEmpty {
                result.errors.append(
                    "\(name): \(outcome.errors.map { "\($0.value) × \($0.key)" }.sorted().joined(separator: ", ")); "
                        + "e.g. \(outcome.errorExample ?? "?")")
            }
            let elapsed = MonotonicClock.nanoseconds() - start
            MonotonicClock.sleep(seconds: Self.settleSeconds)
            result.phases.append(
                Phase(name: name, items: items, before: before, after: try memory.measureMemory(), nanoseconds: elapsed))
        }

        // Kept state: nothing a client calls removes it.
        try phase("fetch schedule", items: Self.appLimit) { () throws(BenchFailure) in
            try clients.run("SetFetchEnabled", count: Self.appLimit) {
                try LimitsClients.call(NotifydBusNames.fetchInterface, "SetFetchEnabled", [.string(Self.fetchApp($0)), .boolean(false)])
            }
        }
        result.pastLimits.append(
            ("fetch schedules: app 10,001", answer(connection, NotifydBusNames.fetchInterface, "SetFetchEnabled",
                [.string(Self.fetchApp(Self.appLimit)), .boolean(false)])))
        try phase("fetch history row", items: fetchApps * Self.historyPerApp) { () throws(BenchFailure) in
            try clients.runEach("FetchNow + CompleteFetch", count: fetchApps) { connection, index in
                for _ in 0..<Self.historyPerApp {
                    let started = try connection.call(
                        LimitsClients.call(NotifydBusNames.fetchInterface, "FetchNow", [.string(Self.fetchApp(index))]),
                        timeoutMilliseconds: 120_000)
                    guard case .uint64(let id)? = try started.arguments().first else { throw BenchFailure("FetchNow answered no 't'") }
                    _ = try connection.call(
                        LimitsClients.call(NotifydBusNames.fetchInterface, "CompleteFetch", [.uint64(id), .string("no-data")]),
                        timeoutMilliseconds: 120_000)
                }
                return nil
            }
        }
        try phase("app with an activation (and a state)", items: Self.appLimit) { () throws(BenchFailure) in
            try clients.run("DidBecomeActive", count: Self.appLimit) {
                try LimitsClients.call(NotifydBusNames.appsInterface, "DidBecomeActive", [.string(Self.activeApp($0))])
            }
        }
        result.pastLimits.append(
            ("apps with a state or activations: app 10,001", answer(connection, NotifydBusNames.appsInterface,
                "DidBecomeActive", [.string(Self.activeApp(Self.appLimit))])))
        let activationApps = self.activationApps
        let moreActivations = activationApps * (Self.activationsPerApp - 1)
        try phase("activation", items: moreActivations) { () throws(BenchFailure) in
            try clients.run("DidBecomeActive", count: moreActivations) {
                try LimitsClients.call(NotifydBusNames.appsInterface, "DidBecomeActive", [.string(Self.activeApp($0 % activationApps))])
            }
        }
        try phase("finished session kept", items: Self.finishedKept) { () throws(BenchFailure) in
            let stored = try clients.run("HandleEventsForBackgroundSession", count: Self.finishedKept) {
                try LimitsClients.call(
                    NotifydBusNames.sessionsInterface, "HandleEventsForBackgroundSession",
                    [.string("limits-kept-\($0)"), .string("org.notifyd.LimitsKept"), Self.quietEvent])
            }
            let completed = try clients.run("CompleteSession", count: Self.finishedKept) {
                try LimitsClients.call(NotifydBusNames.sessionsInterface, "CompleteSession", [.string("limits-kept-\($0)")])
            }
            return Self.merged(stored, completed)
        }
        // The apps' states belong to the clients' connections: the app states are cleared
        // with them below; the activations stay.
        MonotonicClock.sleep(seconds: Self.settleSeconds)
        result.kept = try memory.measureMemory()

        // State clients clear, each filled to its limit.
        try phase("pending handler (and its session)", items: Self.pendingLimit) { () throws(BenchFailure) in
            try populateHandlers(address: address, connection: connection)
            return nil
        }
        result.pastLimits.append(
            ("pending handlers: handler 100,001", answer(connection, NotifydBusNames.sessionsInterface,
                "HandleEventsForBackgroundSession", [.string("limits-past"), .string("org.notifyd.LimitsPast"), Self.quietEvent])))
        try phase("badge", items: Self.appLimit) { () throws(BenchFailure) in
            try clients.run("SetBadge", count: Self.appLimit) {
                try LimitsClients.call(NotifydBusNames.badgesInterface, "SetBadge", [.string(Self.badgeApp($0)), .uint32(1)])
            }
        }
        result.pastLimits.append(
            ("badged apps: app 10,001", answer(connection, NotifydBusNames.badgesInterface, "SetBadge",
                [.string(Self.badgeApp(Self.appLimit)), .uint32(1)])))
        var taskIDs: [Int: UInt64] = [:]
        try phase("background task", items: Self.taskLimit) { () throws(BenchFailure) in
            let begun = try clients.run("BeginBackgroundTask", count: Self.taskLimit, keepNumbers: true) {
                try LimitsClients.call(
                    Self.tasksInterface, "BeginBackgroundTask", [.string(Self.taskApp($0 / Self.tasksPerApp)), .string("limits")])
            }
            taskIDs = begun.numbers
            return begun
        }
        result.pastLimits.append(
            ("running tasks: task 4,097", answer(connection, Self.tasksInterface, "BeginBackgroundTask",
                [.string(Self.taskApp(Self.taskLimit)), .string("limits")])))
        result.filled = try memory.measureMemory()

        // Clearing: what clients can remove.
        let ids = taskIDs
        try phase("clearing: tasks ended", items: Self.taskLimit) { () throws(BenchFailure) in
            try clients.run("EndBackgroundTask", count: Self.taskLimit) {
                try LimitsClients.call(Self.tasksInterface, "EndBackgroundTask", [.uint64(ids[$0] ?? 0)])
            }
        }
        try phase("clearing: badges cleared", items: Self.appLimit) { () throws(BenchFailure) in
            try clients.run("ClearAllBadges", count: 1) { _ in
                try LimitsClients.call(NotifydBusNames.badgesInterface, "ClearAllBadges", [])
            }
        }
        try phase("clearing: sessions completed", items: Self.pendingLimit) { () throws(BenchFailure) in
            try clients.run("CompleteSession", count: Self.pendingLimit) {
                try LimitsClients.call(NotifydBusNames.sessionsInterface, "CompleteSession", [.string(Self.handlerSession($0))])
            }
        }
        clients.close()  // the apps' states: not-running
        MonotonicClock.sleep(seconds: Self.settleSeconds * 2)
        result.cleared = try memory.measureMemory()
        result.pendingAfterClearing = (try? ListSessionsClient(connection: connection).pendingHandlers()) ?? -1
        _ = answer(connection, NotifydBusNames.sessionsInterface, "HandleEventsForBackgroundSession",
            [.string("limits-after"), .string("org.notifyd.LimitsAfter"), Self.quietEvent])
        _ = answer(connection, NotifydBusNames.sessionsInterface, "CompleteSession", [.string("limits-after")])
        MonotonicClock.sleep(seconds: Self.settleSeconds * 2)
        result.afterEvent = try memory.measureMemory()
        return result
    }

    /// 100,000 pending handlers, each on a session of its own, 10,000 per
    /// app, by worker signals (no popup, no badge, a deadline of a day).
    private func populateHandlers(address: String, connection: DBusConnection) throws(BenchFailure) {
        try ListSessionsClient(connection: connection).populate(
            sessions: Self.pendingLimit, perApp: Self.pendingPerApp, address: address, extra: ["badge": .int32(0)],
            session: Self.handlerSession, app: { index, perApp in "org.notifyd.LimitsHandlers.A\(index / perApp)" })
    }

    /// The answer to one call past a limit: the error's name, or "answered".
    private func answer(_ connection: DBusConnection, _ interface: String, _ member: String, _ arguments: [DBusValue]) -> String {
        do {
            _ = try connection.call(LimitsClients.call(interface, member, arguments), timeoutMilliseconds: 120_000)
            return "answered (no limit)"
        } catch let error as DBusError {
            return error.name.replacingPrefix("org.notifyd.Notifyd1.Error.")
        } catch {
            return "\(error)"
        }
    }

    static let tasksInterface = "org.notifyd.Notifyd1.Tasks"
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
