import DBus
import NotifyTesting

/// A stand-in for notifyd's `org.notifyd.Notifyd1.Fetch` interface, with
/// the SPEC's signatures and errors, served from a loop thread.
///
/// `FetchNow` starts fetch 41, 42, … and emits `PerformFetch`; the fetch
/// runs until `CompleteFetch`, which emits `FetchCompleted`. Apps named in
/// ``endsAtOnce`` end their fetch with that result before `FetchNow`
/// replies, after another fetch's `FetchCompleted`: a client that
/// subscribes after the call, or does not look at the fetch ID, gets it
/// wrong. `org.example.Busy` has a fetch running (`LimitExceeded`); `a..b`
/// is an invalid app ID.
final class FetchFakeDaemon: @unchecked Sendable {
    static let interface = "org.notifyd.Notifyd1.Fetch"
    static let endsAtOnce = ["org.example.Quick": "no-data", "org.example.Stale": "expired", "org.example.Broken": "failed"]
    /// 2026-11-21T10:00:00Z.
    static let ten: Int64 = 1_795_255_200_000_000

    private let thread: LoopThread
    // Loop thread only.
    private var connection: DBusConnection?
    private var received: [(member: String, arguments: [DBusValue])] = []
    private var nextID: UInt64 = 41
    private var runningFetches: [UInt64: String] = [:]

    init(address: String) throws {
        thread = try LoopThread()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            try connection.export(DBusObject(path: "/org/notifyd/Notifyd1", interfaces: [self.fetchInterface()]))
            guard try connection.requestName("org.notifyd.Notifyd1") == .primaryOwner else { throw TestFailure("name taken") }
            self.connection = connection
        }
    }

    deinit {
        try? thread.sync { self.connection = nil }
        thread.stop()
    }

    /// The calls accepted so far (refused ones included): member and arguments.
    func calls() throws -> [(member: String, arguments: [DBusValue])] { try thread.sync { self.received } }

    /// The fetches running now.
    func running() throws -> [UInt64] { try thread.sync { self.runningFetches.keys.sorted() } }

    /// Leaves the bus, as a stopping notifyd does.
    func leave() throws { try thread.sync { self.connection = nil } }

    /// The schedule dictionary `GetFetchSchedule` answers for every app.
    static let schedule: [String: DBusValue] = [
        "interval": .uint32(900), "requested-interval": .uint32(1), "enabled": .boolean(true),
        "next": .int64(ten + 1_350_000_000), "reason": .string("22 minutes 30 seconds after the last fetch at 10:00"),
        "last-run": .int64(ten), "last-result": .string("no-data"), "runs": .uint32(2), "running": .uint64(0),
        "waiting-for": .string(""),
    ]

    static let historyType = DBusType.structure([.uint64, .string, .int64, .int64, .string])

    /// What `GetFetchHistory` answers for every app: the newest first.
    static let history: [DBusValue] = [
        .structure([.uint64(2), .string("manual"), .int64(ten), .int64(ten + 1_500_000), .string("no-data")]),
        .structure([
            .uint64(1), .string("scheduled"), .int64(ten - 900_000_000), .int64(ten - 870_000_000), .string("expired"),
        ]),
    ]

    private func emit(_ member: String, _ arguments: [DBusValue]) throws {
        try connection?.emitSignal(path: "/org/notifyd/Notifyd1", interface: Self.interface, member: member, arguments)
    }

    private func fetchInterface() -> DBusInterface {
        let app = DBusArgument("app_id", .string)
        let vardict = DBusType.dictionary(key: .string, value: .variant)
        func method(
            _ name: String, _ inputs: [DBusArgument], _ outputs: [DBusArgument] = [],
            _ body: @escaping (DBusMethodCall) throws -> [DBusValue]
        ) -> DBusMethod {
            DBusMethod(name, inputs: inputs, outputs: outputs) { [unowned self] call in
                received.append((name, call.arguments))
                return .reply(try body(call))
            }
        }
        return DBusInterface(
            Self.interface,
            methods: [
                method("SetFetchInterval", [app, DBusArgument("seconds", .uint32)]) { call in
                    _ = try Self.appID(call)
                    let seconds: UInt32 = try call.argument(1)
                    guard seconds <= 604_800 else {
                        throw DBusError(
                            "org.notifyd.Notifyd1.Error.OutOfRange", "\(seconds) seconds is longer than a week (604800)")
                    }
                    return []
                },
                method("SetFetchEnabled", [app, DBusArgument("enabled", .boolean)]) { call in
                    _ = try Self.appID(call)
                    return []
                },
                method("GetFetchSchedule", [app], [DBusArgument("schedule", vardict)]) { call in
                    _ = try Self.appID(call)
                    return [.vardict(Self.schedule)]
                },
                method("ListFetchSchedules", [], [DBusArgument("schedules", .array(.structure([.string, vardict])))]) { _ in
                    let rows = ["org.example.Reader", "org.example.Mail"].map {
                        DBusValue.structure([.string($0), .vardict(Self.schedule)])
                    }
                    return [.array(element: .structure([.string, vardict]), rows)]
                },
                method("GetFetchHistory", [app], [DBusArgument("history", .array(Self.historyType))]) { call in
                    _ = try Self.appID(call)
                    return [.array(element: Self.historyType, Self.history)]
                },
                method("FetchNow", [app], [DBusArgument("fetch_id", .uint64)]) { [unowned self] call in
                    try fetchNow(try Self.appID(call))
                },
                method("CompleteFetch", [DBusArgument("fetch_id", .uint64), DBusArgument("result", .string)]) {
                    [unowned self] call in
                    let id: UInt64 = try call.argument(0)
                    let result: String = try call.argument(1)
                    guard let app = runningFetches.removeValue(forKey: id) else {
                        throw DBusError("org.notifyd.Notifyd1.Error.UnknownFetch", "fetch \(id) is not running")
                    }
                    try emit("FetchCompleted", [.string(app), .uint64(id), .string(result)])
                    return []
                },
            ],
            signals: [
                DBusSignal("PerformFetch", arguments: [app, .init("fetch_id", .uint64), .init("deadline", .int64)]),
                DBusSignal("FetchCompleted", arguments: [app, .init("fetch_id", .uint64), .init("result", .string)]),
            ])
    }

    private func fetchNow(_ app: String) throws -> [DBusValue] {
        guard app != "org.example.Busy" else {
            throw DBusError("org.notifyd.Notifyd1.Error.LimitExceeded", "a fetch of \(app) is running (fetch 3)")
        }
        let id = nextID
        nextID += 1
        try emit("PerformFetch", [.string(app), .uint64(id), .int64(Self.ten + 30_000_000)])
        if let result = Self.endsAtOnce[app] {
            // Another fetch's end first, then this one's, both before the reply.
            try emit("FetchCompleted", [.string("org.example.Other"), .uint64(id + 1000), .string("new-data")])
            try emit("FetchCompleted", [.string(app), .uint64(id), .string(result)])
        } else {
            runningFetches[id] = app
        }
        return [.uint64(id)]
    }

    private static func appID(_ call: DBusMethodCall) throws -> String {
        let app: String = try call.argument(0)
        if app == "a..b" {
            throw DBusError("org.notifyd.Notifyd1.Error.InvalidAppId", "invalid app ID 'a..b': it may not contain '..'")
        }
        return app
    }
}
