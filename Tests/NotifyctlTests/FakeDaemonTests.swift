import DBus
import Foundation
import Testing
import NotifyTesting

/// The notifyctl executable as a process against a stand-in for notifyd's
/// Sessions and Apps interfaces on a private bus: the calls go out with the
/// SPEC's signatures, replies and errors come back as they should, `event
/// --wait` writes the handler ID before it waits, `activate` leaves the app
/// `not-running` once it exits, and `monitor` prints what the name's owner
/// emits and nothing else. (The real daemon is tested in EndToEndTests.)
@Suite(.serialized) final class FakeDaemonTests {
    let bus: TestBus
    let daemon: FakeNotifyd
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": bus.address] }

    init() throws {
        bus = try TestBus()
        daemon = try FakeNotifyd(address: bus.address)
    }

    func notifyctl(_ arguments: String...) throws -> ProcessResult {
        try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
    }

    @Test func eventSendsTheDictionaryAndPrintsTheHandler() throws {
        let directory = try makeTemporaryDirectory(prefix: "notifyctl-cwd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try runProcess(
            "/bin/sh",
            ["-c", "cd \"$1\" && exec \"$2\" event dl-1 --app firefox --failed 'reset by peer' --path x.iso --sound '' --badge -1 --timeout 60 --no-notify",
             "sh", directory.path, FakeNotifyd.notifyctl],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "7\n")
        let received = try daemon.events()
        #expect(received.count == 1)
        #expect(received.first?.count == 3)
        #expect(received.first?[0] == .string("dl-1"))
        #expect(received.first?[1] == .string("firefox"))
        let event = try #require(received.first?[2])
        #expect(event.signature == "a{sv}")
        let dictionary = try [String: DBusValue](dbusValue: event)
        #expect(
            dictionary == [
                "kind": .string("failed"), "error": .string("reset by peer"),
                "path": .string(directory.resolvingSymlinksInPath().path + "/x.iso"), "sound": .string(""),
                "badge": .int32(-1), "timeout": .uint32(60), "notify": .boolean(false),
            ])
    }

    @Test func progressAndJSON() throws {
        let result = try notifyctl("event", "dl-2", "--app", "firefox", "--progress", "10/100", "--json")
        #expect(result.stdout == "{\"handler_id\":0}\n")
        let dictionary = try [String: DBusValue](dbusValue: try #require(try daemon.events().last?[2]))
        #expect(
            dictionary == ["kind": .string("progress"), "bytes-written": .uint64(10), "bytes-expected": .uint64(100)])
    }

    @Test func daemonErrorsExit1WithTheirMessage() throws {
        let result = try notifyctl("event", "dl-1", "--app", "a..b")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "notifyctl: invalid app ID 'a..b': it may not contain '..'\n")
        let unknown = try notifyctl("wait", "never-seen")
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "notifyctl: no session 'never-seen'\n")
    }

    @Test func completeCancelAndSessions() throws {
        _ = try notifyctl("event", "dl-1", "--app", "firefox")
        _ = try notifyctl("event", "dl-1", "--app", "firefox")
        #expect(try notifyctl("complete", "dl-1").stdout == "2\n")
        #expect(try notifyctl("cancel", "dl-1", "--json").stdout == "{\"invoked\":0}\n")
        let sessions = try notifyctl("sessions")
        #expect(sessions.status == 0)
        let lines = sessions.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("SESSION  APP      PENDING  EVENTS  PROGRESS  LAST-EVENT") == true)
        #expect(lines.last?.hasPrefix("dl-1     firefox  0        2       50%       20") == true)
        let json = try notifyctl("sessions", "--json")
        let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(array?.first?["session"] as? String == "dl-1")
        #expect(array?.first?["last_event"] as? String == "2026-11-21T10:00:00.000Z")
        #expect(array?.first?["progress"] as? Double == 0.5)
    }

    /// `event --wait` prints the handler ID at once, then the result when
    /// the session is completed; `wait` the same for a session.
    @Test func waitingForTheSession() throws {
        let event = try OutputProcess(FakeNotifyd.notifyctl, ["event", "dl-3", "--app", "firefox", "--wait"], environment)
        #expect(event.waitForOutput { $0 == "7\n" }, "the handler ID comes before the wait: \(event.output)")
        let wait = try OutputProcess(FakeNotifyd.notifyctl, ["wait", "dl-3", "--json"], environment)
        #expect(daemon.waitForWaiters(2))
        #expect(event.isRunning && wait.isRunning)
        #expect(try notifyctl("complete", "dl-3").stdout == "1\n")
        #expect(event.finish() == 0)
        #expect(event.output == "7\ncompleted\n")
        #expect(wait.finish() == 0)
        #expect(wait.output == "{\"result\":\"completed\"}\n")
    }

    // MARK: Apps

    @Test func activateResetsTheBadgeAndTheStateEndsWithNotifyctl() throws {
        #expect(try notifyctl("apps").stdout == "APP      STATE        BADGE\nfirefox  not-running  3\n")
        let result = try notifyctl("activate", "firefox")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        let calls = try daemon.appCalls()
        #expect(calls.map(\.member) == ["ListApps", "DidBecomeActive"])
        #expect(calls.last?.arguments == [.string("firefox")])
        // notifyctl's connection owned the state it reported: gone with it (SPEC, Apps).
        #expect(daemon.waitForState("firefox", "not-running"))
        #expect(try notifyctl("state", "firefox").stdout == "not-running\n")
        #expect(try notifyctl("apps").stdout == "APP      STATE        BADGE\nfirefox  not-running  0\n")
    }

    /// A state reported by a connection that stays (an app) is what
    /// `state` and `apps` show, until that connection leaves.
    @Test func stateAndAppsShowWhatARunningAppReported() throws {
        let app = try DBusConnection.connect(to: .address(bus.address))
        _ = try app.call(
            destination: FakeNotifyd.name, path: FakeNotifyd.path, interface: FakeNotifyd.apps,
            member: "DidEnterBackground", [.string("org.gnome.Nautilus")])
        let state = try notifyctl("state", "org.gnome.Nautilus")
        #expect(state.status == 0, "\(state.stderr)")
        #expect(state.stdout == "background\n")
        #expect(
            try notifyctl("state", "org.gnome.Nautilus", "--json").stdout
                == "{\"app\":\"org.gnome.Nautilus\",\"state\":\"background\"}\n")
        #expect(
            try notifyctl("apps").stdout
                == "APP                 STATE        BADGE\nfirefox             not-running  3\norg.gnome.Nautilus  background   0\n")
        let json = try notifyctl("apps", "--json")
        let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(array?.map { $0["app"] as? String } == ["firefox", "org.gnome.Nautilus"])
        #expect(array?.map { $0["state"] as? String } == ["not-running", "background"])
        #expect(array?.map { $0["badge"] as? Int } == [3, 0])
        #expect(try daemon.appCalls().map(\.member) == ["DidEnterBackground", "GetState", "GetState", "ListApps", "ListApps"])
        app.close()
        #expect(daemon.waitForState("org.gnome.Nautilus", "not-running"))
        #expect(try notifyctl("state", "org.gnome.Nautilus").stdout == "not-running\n")
    }

    @Test func appErrorsExit1WithTheirMessage() throws {
        let invalid = try notifyctl("activate", "a..b")
        #expect(invalid.status == 1)
        #expect(invalid.stdout.isEmpty)
        #expect(invalid.stderr == "notifyctl: invalid app ID 'a..b': it may not contain '..'\n")
        let refused = try notifyctl("state", "org.example.Other", "--json")
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "notifyctl: a sandboxed app may only name itself, not 'org.example.Other'\n")
        #expect(try daemon.appCalls().isEmpty, "refused calls change nothing")
    }

    @Test func noAppsPrintNothing() throws {
        try daemon.forgetApps()
        let text = try notifyctl("apps")
        #expect(text.status == 0)
        #expect(text.stdout.isEmpty)
        #expect(try notifyctl("apps", "--json").stdout == "[]\n")
    }

    @Test func appCommandsWithoutNotifydExit3() throws {
        try daemon.leave()
        for arguments in [["activate", "firefox"], ["state", "firefox"], ["apps"]] {
            let result = try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
            #expect(result.status == 3, "\(arguments)")
            #expect(result.stderr.contains("notifyd is not running"))
        }
    }

    // MARK: Monitor

    @Test func monitorPrintsTheOwnersSignalsUntilInterrupted() throws {
        let monitor = try OutputProcess(FakeNotifyd.notifyctl, ["monitor"], environment)
        try waitUntilListening(monitor)
        // Someone else's signal of the same interface is not notifyd's.
        let other = try DBusConnection.connect(to: .address(bus.address))
        try other.emitSignal(
            path: "/org/notifyd/Notifyd1", interface: "org.notifyd.Notifyd1.Badges", member: "BadgeChanged",
            [.string("impostor"), .uint32(9)])
        other.flush()
        try daemon.emit("org.notifyd.Notifyd1.Badges", "BadgeChanged", [.string("firefox"), .uint32(3)])
        try daemon.emit(
            "org.notifyd.Notifyd1.Sessions", "SessionCompleted",
            [.string("dl 1"), .string("firefox"), .uint64(7), .string("completed")])
        try daemon.emit(
            "org.notifyd.Notifyd1.Sessions", "HandleEventsForBackgroundSession",
            [.string("dl-1"), .string("firefox"), .uint64(8), .vardict(["kind": .string("finished"), "title": .string("a b")])])
        #expect(monitor.waitForOutput { Self.lines($0).count == 3 }, "\(monitor.output)")
        #expect(monitor.isRunning)
        #expect(monitor.interrupt() == 0)
        let lines = Self.lines(monitor.output).map { String($0.dropFirst(25)) }
        #expect(
            lines == [
                "BadgeChanged app=firefox count=3",
                "SessionCompleted session=\"dl 1\" app=firefox handler=7 result=completed",
                "HandleEventsForBackgroundSession session=dl-1 app=firefox handler=8 event={kind=finished,title=\"a b\"}",
            ])
        #expect(monitor.output.hasPrefix("20"))
        #expect(!monitor.output.contains("impostor"))
        #expect(!monitor.output.contains("NameAcquired"))
    }

    @Test func monitorJSONAndTheDaemonLeaving() throws {
        let monitor = try OutputProcess(FakeNotifyd.notifyctl, ["monitor", "--json"], environment)
        try waitUntilListening(monitor)
        try daemon.emit(
            "org.notifyd.Notifyd1.Apps", "StateChanged", [.string("firefox"), .string("active")])
        #expect(monitor.waitForOutput { Self.lines($0).count == 1 }, "\(monitor.output)")
        let line = try #require(Self.lines(monitor.output).first)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["interface"] as? String == "org.notifyd.Notifyd1.Apps")
        #expect(object?["member"] as? String == "StateChanged")
        #expect(object?["args"] as? [String] == ["firefox", "active"])
        #expect((object?["time"] as? String)?.hasSuffix("Z") == true)
        try daemon.leave()
        #expect(monitor.finish() == 3)
        #expect(monitor.errors.contains("notifyd left the bus"))
    }

    /// Emits a probe signal until the monitor prints one: it is listening.
    func waitUntilListening(_ monitor: OutputProcess) throws {
        for _ in 0..<100 {
            try daemon.emit("org.notifyd.Notifyd1.Badges", "BadgeChanged", [.string("probe"), .uint32(0)])
            if monitor.waitForOutput(seconds: 0.1, { $0.contains("probe") }) { return }
        }
        Issue.record("monitor does not print: \(monitor.errors)")
    }

    /// The complete lines of the output that are not probes.
    static func lines(_ output: String) -> [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .filter { !$0.contains("probe") }.map(String.init)
    }

    @Test func monitorEndsWithTheBus() throws {
        let monitor = try OutputProcess(FakeNotifyd.notifyctl, ["monitor"], environment)
        try waitUntilListening(monitor)
        bus.stop()
        #expect(monitor.finish() == 3)
        #expect(monitor.errors == "notifyctl: the session bus went away.\n")
    }

    @Test func monitorStopsOnSIGTERM() throws {
        let monitor = try OutputProcess(FakeNotifyd.notifyctl, ["monitor"], environment)
        try waitUntilListening(monitor)
        #expect(monitor.terminate() == 0)
        #expect(monitor.errors.isEmpty)
    }

    @Test func monitorWithoutNotifydExits3() throws {
        try daemon.leave()
        let result = try notifyctl("monitor")
        #expect(result.status == 3)
        #expect(result.stderr.contains("notifyd is not running"))
    }
}

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

/// A notifyctl process whose output is read while it runs.
final class OutputProcess {
    private let process = Process()
    private let outputURL: URL
    private let errorURL: URL

    init(_ executable: String, _ arguments: [String], _ environment: [String: String]) throws {
        let directory = try makeTemporaryDirectory(prefix: "notifyctl-out")
        outputURL = directory.appendingPathComponent("stdout")
        errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: outputURL.deletingLastPathComponent())
    }

    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// Waits (bounded) until the output satisfies `predicate`.
    func waitForOutput(seconds: Double = 10, _ predicate: (String) -> Bool) -> Bool {
        (try? waitUntil("notifyctl's output", seconds: seconds) { predicate(output) }) != nil
    }

    /// Waits (bounded) for the end; the exit status, or -1 when it did not end.
    func finish() -> Int32 {
        try? waitUntil("notifyctl exits", seconds: 10) { !process.isRunning }
        guard !process.isRunning else { return -1 }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// Sends SIGTERM and waits for the end.
    func terminate() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        return finish()
    }

    /// Sends SIGINT (Ctrl-C) and waits for the end.
    func interrupt() -> Int32 {
        kill(process.processIdentifier, SIGINT)
        return finish()
    }
}
