import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// The phases of the limits section, in order (see ``LimitsBenchmark``).
extension LimitsBenchmark {
    func measure(address: String, pid: pid_t, connection: DBusConnection) throws(BenchFailure) -> Result {
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
        try phase("fetch schedule", items: FetchBook.maximumApps) { () throws(BenchFailure) in
            try clients.run("SetFetchEnabled", count: FetchBook.maximumApps) {
                try LimitsClients.call(NotifydNames.fetchInterface, "SetFetchEnabled", [.string(Self.fetchApp($0)), .boolean(false)])
            }
        }
        result.pastLimits.append(
            ("fetch schedules: app \(NumberText.grouped(FetchBook.maximumApps + 1))", answer(connection, NotifydNames.fetchInterface, "SetFetchEnabled",
                [.string(Self.fetchApp(FetchBook.maximumApps)), .boolean(false)])))
        try phase("fetch history row", items: fetchApps * FetchBook.historyKeptPerApp) { () throws(BenchFailure) in
            try clients.runEach("FetchNow + CompleteFetch", count: fetchApps) { connection, index in
                for _ in 0..<FetchBook.historyKeptPerApp {
                    let started = try connection.call(
                        LimitsClients.call(NotifydNames.fetchInterface, "FetchNow", [.string(Self.fetchApp(index))]),
                        timeoutMilliseconds: 120_000)
                    guard case .uint64(let id)? = try started.arguments().first else { throw BenchFailure("FetchNow answered no 't'") }
                    _ = try connection.call(
                        LimitsClients.call(NotifydNames.fetchInterface, "CompleteFetch", [.uint64(id), .string("no-data")]),
                        timeoutMilliseconds: 120_000)
                }
                return nil
            }
        }
        try phase("app with an activation (and a state)", items: AppBook.maximumApps) { () throws(BenchFailure) in
            try clients.run("DidBecomeActive", count: AppBook.maximumApps) {
                try LimitsClients.call(NotifydNames.appsInterface, "DidBecomeActive", [.string(Self.activeApp($0))])
            }
        }
        result.pastLimits.append(
            ("apps with a state or activations: app \(NumberText.grouped(AppBook.maximumApps + 1))", answer(connection, NotifydNames.appsInterface,
                "DidBecomeActive", [.string(Self.activeApp(AppBook.maximumApps))])))
        let activationApps = self.activationApps
        let moreActivations = activationApps * (AppBook.activationsKeptPerApp - 1)
        try phase("activation", items: moreActivations) { () throws(BenchFailure) in
            try clients.run("DidBecomeActive", count: moreActivations) {
                try LimitsClients.call(NotifydNames.appsInterface, "DidBecomeActive", [.string(Self.activeApp($0 % activationApps))])
            }
        }
        try phase("finished session kept", items: SessionBook.finishedSessionsKept) { () throws(BenchFailure) in
            let stored = try clients.run("HandleEventsForBackgroundSession", count: SessionBook.finishedSessionsKept) {
                try LimitsClients.call(
                    NotifydNames.sessionsInterface, "HandleEventsForBackgroundSession",
                    [.string("limits-kept-\($0)"), .string("org.notifyd.LimitsKept"), Self.quietEvent])
            }
            let completed = try clients.run("CompleteSession", count: SessionBook.finishedSessionsKept) {
                try LimitsClients.call(NotifydNames.sessionsInterface, "CompleteSession", [.string("limits-kept-\($0)")])
            }
            return Self.merged(stored, completed)
        }
        // The apps' states belong to the clients' connections: the app states are cleared
        // with them below; the activations stay.
        MonotonicClock.sleep(seconds: Self.settleSeconds)
        result.kept = try memory.measureMemory()

        // State clients clear, each filled to its limit.
        try phase("pending handler (and its session)", items: SessionBook.maximumPending) { () throws(BenchFailure) in
            try populateHandlers(address: address, connection: connection)
            return nil
        }
        result.pastLimits.append(
            ("pending handlers: handler \(NumberText.grouped(SessionBook.maximumPending + 1))", answer(connection, NotifydNames.sessionsInterface,
                "HandleEventsForBackgroundSession", [.string("limits-past"), .string("org.notifyd.LimitsPast"), Self.quietEvent])))
        try phase("badge", items: BadgeBook.maximumApps) { () throws(BenchFailure) in
            try clients.run("SetBadge", count: BadgeBook.maximumApps) {
                try LimitsClients.call(NotifydNames.badgesInterface, "SetBadge", [.string(Self.badgeApp($0)), .uint32(1)])
            }
        }
        result.pastLimits.append(
            ("badged apps: app \(NumberText.grouped(BadgeBook.maximumApps + 1))", answer(connection, NotifydNames.badgesInterface, "SetBadge",
                [.string(Self.badgeApp(BadgeBook.maximumApps)), .uint32(1)])))
        var taskIDs: [Int: UInt64] = [:]
        try phase("background task", items: TaskBook.maximum) { () throws(BenchFailure) in
            let begun = try clients.run("BeginBackgroundTask", count: TaskBook.maximum, keepNumbers: true) {
                try LimitsClients.call(
                    NotifydNames.tasksInterface, "BeginBackgroundTask", [.string(Self.taskApp($0 / TaskBook.maximumPerApp)), .string("limits")])
            }
            taskIDs = begun.numbers
            return begun
        }
        result.pastLimits.append(
            ("running tasks: task \(NumberText.grouped(TaskBook.maximum + 1))", answer(connection, NotifydNames.tasksInterface, "BeginBackgroundTask",
                [.string(Self.taskApp(TaskBook.maximum)), .string("limits")])))
        result.filled = try memory.measureMemory()

        // Clearing: what clients can remove.
        let ids = taskIDs
        try phase("clearing: tasks ended", items: TaskBook.maximum) { () throws(BenchFailure) in
            try clients.run("EndBackgroundTask", count: TaskBook.maximum) {
                try LimitsClients.call(NotifydNames.tasksInterface, "EndBackgroundTask", [.uint64(ids[$0] ?? 0)])
            }
        }
        try phase("clearing: badges cleared", items: BadgeBook.maximumApps) { () throws(BenchFailure) in
            try clients.run("ClearAllBadges", count: 1) { _ in
                try LimitsClients.call(NotifydNames.badgesInterface, "ClearAllBadges", [])
            }
        }
        try phase("clearing: sessions completed", items: SessionBook.maximumPending) { () throws(BenchFailure) in
            try clients.run("CompleteSession", count: SessionBook.maximumPending) {
                try LimitsClients.call(NotifydNames.sessionsInterface, "CompleteSession", [.string(Self.handlerSession($0))])
            }
        }
        clients.close()  // the apps' states: not-running
        MonotonicClock.sleep(seconds: Self.settleSeconds * 2)
        result.cleared = try memory.measureMemory()
        result.pendingAfterClearing = (try? ListSessionsClient(connection: connection).pendingHandlers()) ?? -1
        _ = answer(connection, NotifydNames.sessionsInterface, "HandleEventsForBackgroundSession",
            [.string("limits-after"), .string("org.notifyd.LimitsAfter"), Self.quietEvent])
        _ = answer(connection, NotifydNames.sessionsInterface, "CompleteSession", [.string("limits-after")])
        MonotonicClock.sleep(seconds: Self.settleSeconds * 2)
        result.afterEvent = try memory.measureMemory()
        return result
    }
}
