import DBus

/// Puts the fuzzer's legitimate state in place, idempotently, so "the same
/// afterwards" means something: badges (two ordinary ones, one at the
/// maximum, one near it), a pending handler with a long deadline, a
/// finished session, a session in progress, an app at its limit of
/// 10,000 pending handlers, an app with a fetch interval, its switch off
/// and one fetch in its history, a task begun and ended (so fetch and
/// task IDs have been used), and two transfers that never start, one
/// suspended. Everything is quiet (no popup, no badge).
enum Preparation {
    static func run(_ connection: DBusConnection, address: String) throws {
        func call(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
            try connection.call(destination: Contract.busName, path: Contract.path, interface: interface, member: member, arguments)
        }
        for (app, count) in Legit.badges { _ = try call(Contract.badges, "SetBadge", [.string(app), .uint32(count)]) }

        let sessions = try pendingBySession(connection)
        let quiet: [String: DBusValue] = ["notify": .boolean(false), "badge": .int32(0), "timeout": .uint32(86400)]
        func event(_ session: String, _ app: String, _ extra: [String: DBusValue]) throws {
            _ = try call(Contract.sessions, "HandleEventsForBackgroundSession", [.string(session), .string(app), .vardict(quiet.merging(extra) { $1 })])
        }
        if (sessions[Legit.pendingSession] ?? 0) == 0 {
            try event(Legit.pendingSession, Legit.appA, ["kind": .string("finished"), "title": .string("legit download")])
        }
        if sessions[Legit.doneSession] == nil {
            try event(Legit.doneSession, Legit.appB, ["kind": .string("failed"), "error": .string("legit failure")])
        }
        if (sessions[Legit.doneSession] ?? 1) > 0 { _ = try call(Contract.sessions, "CompleteSession", [.string(Legit.doneSession)]) }
        if sessions[Legit.progressSession] == nil {
            try event(Legit.progressSession, Legit.appB, ["kind": .string("progress"), "bytes-written": .uint64(10), "bytes-expected": .uint64(100)])
        }

        let missing = Contract.pendingPerApp - Int(sessions[Legit.fullSession] ?? 0)
        if missing > 0 {
            let message = { () throws(DBusError) -> DBusMessage in
                try DBusMessage.methodCall(
                    destination: Contract.busName, path: Contract.path, interface: Contract.sessions,
                    member: "HandleEventsForBackgroundSession",
                    arguments: [.string(Legit.fullSession), .string(Legit.fullApp), .vardict(quiet.merging(["kind": .string("fetch"), "result": .string("no-data")]) { $1 })])
            }
            let results = try Pipeline.run(address: address, (0..<missing).map { _ in try message() })
            if let failure = results.first(where: { if case .failure = $0 { true } else { false } }), case .failure(let error) = failure {
                throw FuzzFailure("cannot fill \(Legit.fullApp) to its limit: \(error)")
            }
        }
        let after = try pendingBySession(connection)
        guard after[Legit.fullSession] == UInt32(Contract.pendingPerApp) else {
            throw FuzzFailure("\(Legit.fullApp) has \(after[Legit.fullSession] ?? 0) pending handlers, not \(Contract.pendingPerApp)")
        }
        try prepareFetchAndTask(call)
        try prepareTransfers(connection)
    }

    /// The fetch app (interval, switch off, one fetch completed) and a task
    /// begun and ended: not stored, so done on every run.
    private static func prepareFetchAndTask(_ call: (String, String, [DBusValue]) throws -> [DBusValue]) throws {
        let app = DBusValue.string(Legit.fetchApp)
        // The switch first: with an interval and the switch on, the scheduler would start a fetch at once.
        _ = try call(Contract.fetch, "SetFetchEnabled", [app, .boolean(false)])
        _ = try call(Contract.fetch, "SetFetchInterval", [app, .uint32(Legit.fetchInterval)])
        if case .array(_, let history)? = try call(Contract.fetch, "GetFetchHistory", [app]).first, history.isEmpty {
            // One an interrupted preparation left running, or a new one.
            var running: UInt64 = 0
            if case .dictionary(_, _, let schedule)? = try call(Contract.fetch, "GetFetchSchedule", [app]).first,
                case .variant(.uint64(let id))? = schedule.first(where: { $0.key == .string("running") })?.value
            {
                running = id
            }
            if running == 0, case .uint64(let id)? = try call(Contract.fetch, "FetchNow", [app]).first { running = id }
            guard running != 0 else { throw FuzzFailure("FetchNow of \(Legit.fetchApp) answered no fetch ID") }
            _ = try call(Contract.fetch, "CompleteFetch", [.uint64(running), .string("no-data")])
        }
        let began = try call(Contract.tasks, "BeginBackgroundTask", [.string(Legit.taskApp), .string("fuzz preparation")])
        guard case .uint64(let task)? = began.first else { throw FuzzFailure("BeginBackgroundTask answered no task ID") }
        _ = try call(Contract.tasks, "EndBackgroundTask", [.uint64(task)])
    }

    /// The IDs of the fetches and tasks running now: no case may name them.
    static func runningIDs(_ connection: DBusConnection) throws -> Set<UInt64> {
        func call(_ interface: String, _ member: String) throws -> [DBusValue] {
            let reply = try connection.call(destination: Contract.busName, path: Contract.path, interface: interface, member: member)
            guard case .array(_, let rows)? = reply.first else { return [] }
            return rows
        }
        var ids = Set<UInt64>()
        for case .structure(let fields) in try call(Contract.tasks, "ListBackgroundTasks") {
            if case .uint64(let id)? = fields.first { ids.insert(id) }
        }
        for case .structure(let fields) in try call(Contract.fetch, "ListFetchSchedules") {
            if fields.count == 2, case .dictionary(_, _, let entries) = fields[1] {
                for entry in entries where entry.key == .string("running") {
                    if case .variant(.uint64(let id)) = entry.value, id != 0 { ids.insert(id) }
                }
            }
        }
        return ids
    }

    /// Cancels what an interrupted run left pending in the accepted
    /// sessions, so that the final count is exact, and the transfers it
    /// left.
    static func settleLeftovers(_ connection: DBusConnection) throws {
        try settleTransfers(connection)
        for (session, pending) in try pendingBySession(connection) where session.hasPrefix(Legit.acceptedSessionPrefix) && pending > 0 {
            _ = try connection.call(
                destination: Contract.busName, path: Contract.path, interface: Contract.sessions, member: "CancelSession", [.string(session)])
        }
    }

    /// Pending handlers of every session notifyd keeps.
    static func pendingBySession(_ connection: DBusConnection) throws -> [String: UInt32] {
        let reply = try connection.call(destination: Contract.busName, path: Contract.path, interface: Contract.sessions, member: "ListSessions")
        var result: [String: UInt32] = [:]
        if case .array(_, let rows)? = reply.first {
            for case .structure(let fields) in rows where fields.count == 4 {
                if case .string(let id) = fields[0], case .uint32(let pending) = fields[2] { result[id] = pending }
            }
        }
        return result
    }
}

/// Sends many calls on one connection with up to `window` in flight and
/// collects every answer, on the calling thread (for preparing state).
enum Pipeline {
    static func run(
        address: String, _ messages: [DBusMessage], window: Int = 256, timeoutMilliseconds: Int32 = 60_000
    ) throws -> [Result<DBusMessage, DBusError>] {
        let loop = try EventLoop()
        let connection = try DBusConnection.connect(to: .address(address))
        try connection.attach(to: loop)
        var results = [Result<DBusMessage, DBusError>?](repeating: nil, count: messages.count)
        var next = 0
        var done = 0
        func pump() {
            while next < messages.count, next - done < window {
                let index = next
                next += 1
                do {
                    try connection.callAsync(messages[index], timeoutMilliseconds: timeoutMilliseconds) { result in
                        results[index] = result
                        done += 1
                        if done == messages.count { loop.stop() } else { pump() }
                    }
                } catch {
                    results[index] = .failure(error)
                    done += 1
                }
            }
        }
        guard !messages.isEmpty else { return [] }
        pump()
        if done < messages.count { loop.run() }
        return results.map { $0 ?? .failure(DBusError.failed("not sent")) }
    }
}
