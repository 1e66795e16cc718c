import DBus
import Synchronization

/// An `org.freedesktop.Notifications` server on a private bus that counts
/// and records what notifyd posts: for tests that check what really
/// reached the desktop, and for the benchmark's events section, which only
/// counts (`recordsCalls: false`: no argument is decoded beyond
/// `replaces_id`, nothing is kept). It runs on a ``LoopThread`` of its own
/// and can act as a user would: invoke an action, dismiss a popup.
public final class RecordingNotificationServer: Sendable {
    public static let busName = "org.freedesktop.Notifications"
    public static let path = "/org/freedesktop/Notifications"

    /// The name it gives in GetServerInformation (notifyd shows progress
    /// bars only to servers it knows draw them, such as "dunst").
    public let name: String
    /// The vendor it gives (notifyd knows what GNOME's and MATE's
    /// "Notification Daemon" really play).
    public let vendor: String

    private struct State {
        var recorded: [Recorded] = []
        var closeCalls: [UInt32] = []
        var counts = Counts()
        var capabilities: [String]
        var nextID: UInt32 = 1
        var refusing = false
    }

    private let state: Mutex<State>
    private let recordsCalls: Bool
    private let thread: LoopThread

    /// Connects to the bus at `address` and takes the server's name.
    ///
    /// - Parameters:
    ///   - recordsCalls: whether every call is kept (its arguments
    ///     decoded); when false, only ``counts`` are.
    ///   - exportsLate: take the name first and export the object this
    ///     many seconds later, as GNOME Shell's notification helper does
    ///     (calls in between are answered `UnknownMethod`: no such object).
    public init(
        address: String, capabilities: [String] = ["actions", "body", "body-markup", "persistence", "sound"],
        name: String = "recorder", vendor: String = "notifyd tests", recordsCalls: Bool = true,
        exportsLate: Double? = nil
    ) throws {
        self.name = name
        self.vendor = vendor
        self.recordsCalls = recordsCalls
        state = Mutex(State(capabilities: capabilities))
        thread = try LoopThread(name: "notifications")
        let interface = interface()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            let object = DBusObject(path: Self.path, interfaces: [interface])
            if let exportsLate {
                self.thread.loop.scheduleTimer(afterNanoseconds: UInt64(exportsLate * 1e9)) {
                    try? connection.export(object)
                }
            } else {
                try connection.export(object)
            }
            guard try connection.requestName(Self.busName) == .primaryOwner else {
                throw TestFailure("\(Self.busName) is already taken on \(address)")
            }
            self.connection.value = connection
        }
    }

    private let connection = LoopOwned<DBusConnection>()
    private let stopped = Atomic<Bool>(false)

    deinit { stop() }

    /// Leaves the bus (the name goes away) and ends the loop thread. Idempotent.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        // Not `self` in the closure: stop() runs from deinit too.
        let connection = self.connection
        try? thread.sync { connection.value = nil }
        thread.stop()
    }

    /// Every `Notify` call so far, in order (none unless `recordsCalls`).
    public var notifications: [Recorded] { state.withLock { $0.recorded } }

    /// The ids `CloseNotification` was called with, in order (none unless `recordsCalls`).
    public var closeRequests: [UInt32] { state.withLock { $0.closeCalls } }

    /// The counts now.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Whether `Notify` fails (with `org.freedesktop.DBus.Error.Failed`,
    /// recording nothing) from now on.
    public func refuseNotifications(_ refuse: Bool) { state.withLock { $0.refusing = refuse } }

    /// What `GetCapabilities` answers from now on.
    public func setCapabilities(_ capabilities: [String]) { state.withLock { $0.capabilities = capabilities } }

    /// Waits (bounded) until `count` notifications were recorded; returns them all.
    @discardableResult
    public func waitForNotifications(count: Int, seconds: Double = 5) throws -> [Recorded] {
        try waitFor("\(count) notification(s)", seconds: seconds) { $0.recorded.count >= count ? $0.recorded : nil }
    }

    /// Waits (bounded) until `CloseNotification` was called `count` times.
    @discardableResult
    public func waitForCloseRequests(count: Int, seconds: Double = 5) throws -> [UInt32] {
        try waitFor("\(count) CloseNotification call(s)", seconds: seconds) {
            $0.closeCalls.count >= count ? $0.closeCalls : nil
        }
    }

    /// Emits `ActionInvoked(id, action)`, as when the user picks an action;
    /// with a token, `ActivationToken(id, token)` just before it, as newer
    /// servers do (libnotify 0.8 hands it to the action's callback).
    public func invokeAction(id: UInt32, action: String, activationToken: String? = nil) throws {
        if let activationToken { try emit("ActivationToken", [.uint32(id), .string(activationToken)]) }
        try emit("ActionInvoked", [.uint32(id), .string(action)])
    }

    /// Emits `NotificationClosed(id, reason)` (1 expired, 2 dismissed, 3 closed by a call).
    public func close(id: UInt32, reason: UInt32 = 2) throws {
        try emit("NotificationClosed", [.uint32(id), .uint32(reason)])
    }

    private func emit(_ member: String, _ arguments: [DBusValue]) throws {
        try thread.sync {
            guard let connection = self.connection.value else { throw TestFailure("the server was stopped") }
            try connection.emitSignal(path: Self.path, interface: Self.busName, member: member, arguments)
        }
    }

    private func waitFor<T: Sendable>(_ what: String, seconds: Double, _ ready: (borrowing State) -> T?) throws -> T {
        var value: T?
        do {
            try waitUntil(what, seconds: seconds, intervalMicroseconds: 1_000) {
                value = state.withLock { ready($0) }
                return value != nil
            }
        } catch {
            throw TestFailure("the server did not get \(what) within \(seconds) s; it has \(notifications)")
        }
        return value!
    }

    private func record(_ call: DBusMethodCall) throws -> UInt32 {
        let replacesID: UInt32 = try call.argument(1)
        let recorded = recordsCalls ? Recorded(
            appName: (try? call.argument(0)) ?? "", replacesID: replacesID, appIcon: (try? call.argument(2)) ?? "",
            summary: (try? call.argument(3)) ?? "", body: (try? call.argument(4)) ?? "",
            actions: (try? call.argument(5)) ?? [], hints: (try? call.argument(6)) ?? [:],
            expireTimeout: (try? call.argument(7)) ?? 0, id: 0) : nil
        let id = state.withLock { state -> UInt32? in
            guard !state.refusing else { return nil }
            let id = replacesID != 0 ? replacesID : state.nextID
            if replacesID == 0 { state.nextID &+= 1 } else { state.counts.replacing += 1 }
            state.counts.notify += 1
            if var recorded {
                recorded.id = id
                state.recorded.append(recorded)
            }
            return id
        }
        guard let id else { throw DBusError.failed("the recording server refuses notifications") }
        return id
    }

    private func closeNotification(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let id: UInt32 = try call.argument(0)
        state.withLock { state in
            state.counts.close += 1
            if recordsCalls { state.closeCalls.append(id) }
        }
        // Reason 3: closed by a call to CloseNotification.
        try call.connection.emitSignal(
            path: Self.path, interface: Self.busName, member: "NotificationClosed", [.uint32(id), .uint32(3)])
        return .reply([])
    }

    private func interface() -> DBusInterface {
        DBusInterface(
            Self.busName,
            methods: [
                DBusMethod("GetCapabilities", outputs: [.init("capabilities", .array(.string))]) { [unowned self] _ in
                    .reply([.strings(self.state.withLock { $0.capabilities })])
                },
                DBusMethod(
                    "GetServerInformation",
                    outputs: [.init("name", .string), .init("vendor", .string), .init("version", .string), .init("spec_version", .string)]
                ) { [unowned self] _ in
                    .reply([.string(self.name), .string(self.vendor), .string("1.0"), .string("1.2")])
                },
                DBusMethod(
                    "Notify",
                    inputs: [
                        .init("app_name", .string), .init("replaces_id", .uint32), .init("app_icon", .string),
                        .init("summary", .string), .init("body", .string), .init("actions", .array(.string)),
                        .init("hints", .dictionary(key: .string, value: .variant)), .init("expire_timeout", .int32),
                    ],
                    outputs: [.init("id", .uint32)]
                ) { [unowned self] call in
                    .reply([.uint32(try self.record(call))])
                },
                DBusMethod("CloseNotification", inputs: [.init("id", .uint32)]) { [unowned self] call in
                    try self.closeNotification(call)
                },
            ],
            signals: [
                DBusSignal("ActionInvoked", arguments: [.init("id", .uint32), .init("action_key", .string)]),
                DBusSignal("ActivationToken", arguments: [.init("id", .uint32), .init("activation_token", .string)]),
                DBusSignal("NotificationClosed", arguments: [.init("id", .uint32), .init("reason", .uint32)]),
            ])
    }
}
