import DBus
import Foundation
import Testing
import NotifyTesting

/// A stand-in for notifyd: the name, the Sessions and Apps methods with
/// their SPEC signatures, and signals on demand, served from a loop thread.
///
/// Apps as SPEC has them: the connection that last reported an app's state
/// owns it, and the app is `not-running` once that connection leaves the
/// bus; `DidBecomeActive` resets the badge. It knows `firefox` (badge 3)
/// from the start; `a..b` is an invalid app ID and `org.example.Other` an
/// app the caller may not name, as for a sandboxed caller.
final class FakeNotifyd: @unchecked Sendable {
    static let name = "org.notifyd.Notifyd1"
    static let path = "/org/notifyd/Notifyd1"
    static let sessions = "org.notifyd.Notifyd1.Sessions"
    static let apps = "org.notifyd.Notifyd1.Apps"

    /// The notifyctl executable built next to the test bundle.
    static var notifyctl: String {
        if let directory = ProcessInfo.processInfo.environment["NOTIFYD_BIN_DIR"], !directory.isEmpty {
            return directory + "/notifyctl"
        }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        repeat {
            directory = directory.deletingLastPathComponent()
            let candidate = directory.appendingPathComponent("notifyctl").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        } while directory.path != "/"
        return Executables.notifyctl
    }

    private let thread: LoopThread
    // Loop thread only.
    private var connection: DBusConnection?
    private var received: [[DBusValue]] = []
    private var eventCount = 0
    private var waiting: [(session: String, call: DBusMethodCall)] = []
    private var apps: [String: (state: String, owner: String?, badge: UInt32)] = [
        "firefox": ("not-running", nil, 3)
    ]
    private var followed: Set<String> = []
    private var appCallsReceived: [(member: String, arguments: [DBusValue])] = []

    init(address: String) throws {
        thread = try LoopThread()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            try connection.export(DBusObject(path: Self.path, interfaces: [self.interface(), self.appsInterface()]))
            guard try connection.requestName(Self.name) == .primaryOwner else { throw TestFailure("name taken") }
            self.connection = connection
        }
    }

    deinit {
        try? thread.sync { self.connection = nil }
        thread.stop()
    }

    /// The events received so far: (session, app, event) each.
    func events() throws -> [[DBusValue]] { try thread.sync { self.received } }

    func emit(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws {
        try thread.sync {
            try self.connection?.emitSignal(path: Self.path, interface: interface, member: member, arguments)
            self.connection?.flush()
        }
    }

    /// Leaves the bus, as a stopping notifyd does.
    func leave() throws {
        try thread.sync {
            self.waiting.removeAll()
            self.connection = nil
        }
    }

    /// The Apps calls accepted so far: member and arguments.
    func appCalls() throws -> [(member: String, arguments: [DBusValue])] { try thread.sync { self.appCallsReceived } }

    /// Forgets every app, as a fresh notifyd.
    func forgetApps() throws { try thread.sync { self.apps.removeAll() } }

    /// Waits (bounded) until the app's state is `state`.
    func waitForState(_ app: String, _ state: String) -> Bool {
        poll { (try? self.thread.sync { self.apps[app]?.state == state }) ?? false }
    }

    /// Waits (bounded) until `count` WaitForSession calls are pending.
    func waitForWaiters(_ count: Int) -> Bool {
        poll { (try? self.thread.sync { self.waiting.count >= count }) ?? false }
    }

    private func poll(_ condition: () -> Bool) -> Bool {
        (try? waitUntil("the fake notifyd's state", seconds: 10, condition)) != nil
    }

    private func interface() -> DBusInterface {
        let vardict = DBusType.dictionary(key: .string, value: .variant)
        return DBusInterface(
            Self.sessions,
            methods: [
                DBusMethod(
                    "HandleEventsForBackgroundSession",
                    inputs: [DBusArgument("session_id", .string), DBusArgument("app_id", .string), DBusArgument("event", vardict)],
                    outputs: [DBusArgument("handler_id", .uint64)]
                ) { call in
                    let app: String = try call.argument(1)
                    if app == "a..b" {
                        throw DBusError(
                            "org.notifyd.Notifyd1.Error.InvalidAppId", "invalid app ID 'a..b': it may not contain '..'")
                    }
                    self.received.append(call.arguments)
                    self.eventCount += 1
                    let event: [String: DBusValue] = try call.argument(2)
                    return .reply([.uint64(event["kind"] == .string("progress") ? 0 : 7)])
                },
                DBusMethod(
                    "CompleteSession", inputs: [DBusArgument("session_id", .string)],
                    outputs: [DBusArgument("invoked", .uint32)]
                ) { call in .reply([.uint32(self.invoke(try call.argument(0), "completed"))]) },
                DBusMethod(
                    "CancelSession", inputs: [DBusArgument("session_id", .string)],
                    outputs: [DBusArgument("invoked", .uint32)]
                ) { call in .reply([.uint32(self.invoke(try call.argument(0), "cancelled"))]) },
                DBusMethod(
                    "WaitForSession", inputs: [DBusArgument("session_id", .string)],
                    outputs: [DBusArgument("result", .string)]
                ) { call in
                    let session: String = try call.argument(0)
                    guard session.hasPrefix("dl-") else {
                        throw DBusError("org.notifyd.Notifyd1.Error.UnknownSession", "no session '\(session)'")
                    }
                    self.waiting.append((session, call))
                    return .deferred
                },
                DBusMethod(
                    "ListSessions",
                    outputs: [DBusArgument("sessions", .array(.structure([.string, .string, .uint32, vardict])))]
                ) { _ in
                    let details = DBusValue.vardict([
                        "events": .uint32(UInt32(self.eventCount)), "last-event": .int64(1_795_255_200_000_000),
                        "progress": .double(0.5),
                    ])
                    return .reply([
                        .array(
                            element: .structure([.string, .string, .uint32, vardict]),
                            [.structure([.string("dl-1"), .string("firefox"), .uint32(0), details])])
                    ])
                },
            ])
    }

    private func appsInterface() -> DBusInterface {
        let app = [DBusArgument("app_id", .string)]
        return DBusInterface(
            Self.apps,
            methods: [
                DBusMethod("DidBecomeActive", inputs: app) { call in try self.report(call, "active") },
                DBusMethod("WillResignActive", inputs: app) { call in try self.report(call, "inactive") },
                DBusMethod("DidEnterBackground", inputs: app) { call in try self.report(call, "background") },
                DBusMethod("GetState", inputs: app, outputs: [DBusArgument("state", .string)]) { call in
                    let app = try self.appArgument(call)
                    self.appCallsReceived.append(("GetState", call.arguments))
                    return .reply([.string(self.apps[app]?.state ?? "not-running")])
                },
                DBusMethod(
                    "ListApps", outputs: [DBusArgument("apps", .array(.structure([.string, .string, .uint32])))]
                ) { call in
                    self.appCallsReceived.append(("ListApps", call.arguments))
                    // In no particular order: notifyctl sorts.
                    let entries = self.apps.sorted { $0.key > $1.key }.map {
                        DBusValue.structure([.string($0.key), .string($0.value.state), .uint32($0.value.badge)])
                    }
                    return .reply([.array(element: .structure([.string, .string, .uint32]), entries)])
                },
            ],
            signals: [
                DBusSignal("StateChanged", arguments: [DBusArgument("app_id", .string), DBusArgument("state", .string)])
            ])
    }

    /// The app ID argument, refused as notifyd would.
    private func appArgument(_ call: DBusMethodCall) throws -> String {
        let app: String = try call.argument(0)
        if app == "a..b" {
            throw DBusError("org.notifyd.Notifyd1.Error.InvalidAppId", "invalid app ID 'a..b': it may not contain '..'")
        }
        if app == "org.example.Other" {
            throw DBusError(
                "org.notifyd.Notifyd1.Error.NotPermitted", "a sandboxed app may only name itself, not '\(app)'")
        }
        return app
    }

    /// DidBecomeActive and the like: the caller's connection now owns the
    /// app's state; active resets the badge.
    private func report(_ call: DBusMethodCall, _ state: String) throws -> DBusMethodResult {
        let app = try appArgument(call)
        appCallsReceived.append((String(call.member.split(separator: ".").last ?? ""), call.arguments))
        var entry = apps[app] ?? (state: "not-running", owner: nil, badge: 0)
        entry.state = state
        entry.owner = call.sender
        if state == "active" { entry.badge = 0 }
        apps[app] = entry
        try connection?.emitSignal(
            path: Self.path, interface: Self.apps, member: "StateChanged", [.string(app), .string(state)])
        if followed.insert(call.sender).inserted {
            let sender = call.sender
            try connection?.watchNameOwner(sender) { owner in
                guard owner == nil else { return }
                for (app, entry) in self.apps where entry.owner == sender {
                    self.apps[app] = (state: "not-running", owner: nil, badge: entry.badge)
                }
            }
        }
        return .reply([])
    }

    /// Answers the session's waiting calls; returns how many events it had
    /// (what this stand-in calls its pending handlers), then forgets them.
    private func invoke(_ session: String, _ result: String) -> UInt32 {
        for waiter in waiting where waiter.session == session { waiter.call.reply([.string(result)]) }
        waiting.removeAll { $0.session == session }
        let pending = received.filter { $0.first == .string(session) }.count
        received.removeAll { $0.first == .string(session) }
        return UInt32(pending)
    }
}
