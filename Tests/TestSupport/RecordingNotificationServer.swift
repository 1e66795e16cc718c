import DBus
import Foundation

/// An `org.freedesktop.Notifications` server on a ``TestBus`` that records
/// every `Notify` call, for tests that check what really reached the
/// desktop. It runs on a ``LoopThread`` of its own and can act as a user
/// would: invoke an action, dismiss a popup.
public final class RecordingNotificationServer: @unchecked Sendable {
    /// One `Notify(susssasa{sv}i) → u` call.
    public struct Recorded: Sendable, Hashable {
        public var appName: String
        public var replacesID: UInt32
        public var appIcon: String
        public var summary: String
        public var body: String
        /// Pairs of action ID and label, flattened as on the wire.
        public var actions: [String]
        /// Hint values with their variant unwrapped.
        public var hints: [String: DBusValue]
        public var expireTimeout: Int32
        /// The id the server answered.
        public var id: UInt32

        /// The actions as `[id: label]`.
        public var actionLabels: [String: String] {
            var labels: [String: String] = [:]
            for index in stride(from: 0, to: actions.count - 1, by: 2) { labels[actions[index]] = actions[index + 1] }
            return labels
        }
    }

    public static let busName = "org.freedesktop.Notifications"
    public static let path = "/org/freedesktop/Notifications"

    private let thread: LoopThread
    private let condition = NSCondition()
    private var recorded: [Recorded] = []
    private var closeCalls: [UInt32] = []
    private var capabilities: [String]
    private var nextID: UInt32 = 1
    private var connection: DBusConnection?
    private var stopped = false
    private var refusing = false

    /// Connects to the bus at `address` and takes the server's name.
    /// The name it gives in GetServerInformation (notifyd shows progress
    /// bars only to servers it knows draw them, such as "dunst").
    public let name: String

    /// The vendor it gives (notifyd knows what GNOME's and MATE's
    /// "Notification Daemon" really play).
    public let vendor: String

    public init(
        address: String, capabilities: [String] = ["actions", "body", "body-markup", "persistence", "sound"],
        name: String = "recorder", vendor: String = "notifyd tests"
    ) throws {
        self.capabilities = capabilities
        self.name = name
        self.vendor = vendor
        thread = try LoopThread()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            try connection.export(DBusObject(path: Self.path, interfaces: [self.interface()]))
            guard try connection.requestName(Self.busName) == .primaryOwner else {
                throw TestFailure("\(Self.busName) is already taken on \(address)")
            }
            self.connection = connection
        }
    }

    deinit { stop() }

    /// Leaves the bus (the name goes away) and ends the loop thread. Idempotent.
    public func stop() {
        guard locked({ () -> Bool in
            defer { stopped = true }
            return !stopped
        }) else { return }
        try? thread.sync { self.connection = nil }
        thread.stop()
    }

    /// Every `Notify` call so far, in order.
    public var notifications: [Recorded] { locked { recorded } }

    /// The ids `CloseNotification` was called with, in order.
    public var closeRequests: [UInt32] { locked { closeCalls } }

    /// Whether `Notify` fails (with `org.freedesktop.DBus.Error.Failed`,
    /// recording nothing) from now on.
    public func refuseNotifications(_ refuse: Bool) { locked { refusing = refuse } }

    /// What `GetCapabilities` answers from now on.
    public func setCapabilities(_ capabilities: [String]) { locked { self.capabilities = capabilities } }

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
            guard let connection = self.connection else { throw TestFailure("the server was stopped") }
            try connection.emitSignal(path: Self.path, interface: Self.busName, member: member, arguments)
        }
    }

    private func waitFor<T>(_ what: String, seconds: Double, _ ready: (RecordingNotificationServer) -> T?) throws -> T {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value = ready(self) { return value }
            guard condition.wait(until: deadline) else {
                throw TestFailure("the server did not get \(what) within \(seconds) s; it has \(recorded)")
            }
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body()
    }

    private func record(_ call: DBusMethodCall) throws -> UInt32 {
        let replacesID: UInt32 = try call.argument(1)
        guard !locked({ refusing }) else { throw DBusError.failed("the recording server refuses notifications") }
        return locked {
            let id = replacesID != 0 ? replacesID : nextID
            if replacesID == 0 { nextID += 1 }
            recorded.append(Recorded(
                appName: (try? call.argument(0)) ?? "", replacesID: replacesID, appIcon: (try? call.argument(2)) ?? "",
                summary: (try? call.argument(3)) ?? "", body: (try? call.argument(4)) ?? "",
                actions: (try? call.argument(5)) ?? [], hints: (try? call.argument(6)) ?? [:],
                expireTimeout: (try? call.argument(7)) ?? 0, id: id))
            return id
        }
    }

    private func interface() -> DBusInterface {
        DBusInterface(
            Self.busName,
            methods: [
                DBusMethod("GetCapabilities", outputs: [.init("capabilities", .array(.string))]) { [unowned self] _ in
                    .reply([.strings(self.locked { self.capabilities })])
                },
                DBusMethod(
                    "GetServerInformation",
                    outputs: [.init("name", .string), .init("vendor", .string), .init("version", .string), .init("spec_version", .string)]
                ) { _ in
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
                    let id: UInt32 = try call.argument(0)
                    self.locked { self.closeCalls.append(id) }
                    try call.connection.emitSignal(
                        path: Self.path, interface: Self.busName, member: "NotificationClosed", [.uint32(id), .uint32(3)])
                    return .reply([])
                },
            ],
            signals: [
                DBusSignal("ActionInvoked", arguments: [.init("id", .uint32), .init("action_key", .string)]),
                DBusSignal("ActivationToken", arguments: [.init("id", .uint32), .init("activation_token", .string)]),
                DBusSignal("NotificationClosed", arguments: [.init("id", .uint32), .init("reason", .uint32)]),
            ])
    }
}
