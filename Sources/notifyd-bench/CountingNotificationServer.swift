import DBus
import Synchronization

/// An `org.freedesktop.Notifications` server on the private bus, so that
/// notifyd posts its popups to something during the events section. It
/// answers as a desktop's server would and only counts: `Notify` calls
/// (and how many of them replace a notification in place) and
/// `CloseNotification` calls. It is served by an ``EventLoop`` on a thread
/// of its own; the counts can be read from any thread.
final class CountingNotificationServer: Sendable {
    static let busName = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let capabilities = ["actions", "body", "sound"]
    /// What `GetServerInformation` answers: name, vendor, version, spec version.
    static let information = ["bench-counter", "notifyd", "1", "1.2"]

    /// What the server received so far.
    struct Counts {
        /// `Notify` calls: every popup notifyd posted or updated.
        var notify = 0
        /// Of those, the calls that replaced a notification in place (`replaces_id` not 0).
        var replacing = 0
        /// `CloseNotification` calls.
        var close = 0

        static func - (lhs: Counts, rhs: Counts) -> Counts {
            Counts(notify: lhs.notify - rhs.notify, replacing: lhs.replacing - rhs.replacing, close: lhs.close - rhs.close)
        }
    }

    private let tally: Tally
    private let thread: LoopThread

    /// Connects to the bus at `address`, exports the server and takes its name.
    init(address: String) throws(BenchFailure) {
        let tally = Tally()
        self.tally = tally
        thread = try LoopThread { loop in
            let connection = try DBusConnection.connect(to: .address(address), private: true)
            try connection.attach(to: loop)
            try connection.export(DBusObject(path: Self.path, interfaces: [Self.interface(tally)]))
            guard try connection.requestName(Self.busName) == .primaryOwner else {
                throw BenchFailure("\(Self.busName) is already taken on the private bus.")
            }
            return connection
        }
    }

    /// The counts now.
    var counts: Counts {
        Counts(
            notify: tally.notify.load(ordering: .relaxed), replacing: tally.replacing.load(ordering: .relaxed),
            close: tally.close.load(ordering: .relaxed))
    }

    /// Leaves the bus and ends the thread.
    func stop() {
        thread.stop()
    }

    private static func interface(_ tally: Tally) -> DBusInterface {
        DBusInterface(
            busName,
            methods: [
                DBusMethod("GetCapabilities", outputs: [.init("capabilities", .array(.string))]) { _ in
                    .reply([.strings(capabilities)])
                },
                DBusMethod(
                    "GetServerInformation",
                    outputs: [
                        .init("name", .string), .init("vendor", .string), .init("version", .string),
                        .init("spec_version", .string),
                    ]
                ) { _ in
                    .reply(information.map { .string($0) })
                },
                DBusMethod(
                    "Notify",
                    inputs: [
                        .init("app_name", .string), .init("replaces_id", .uint32), .init("app_icon", .string),
                        .init("summary", .string), .init("body", .string), .init("actions", .array(.string)),
                        .init("hints", .dictionary(key: .string, value: .variant)), .init("expire_timeout", .int32),
                    ],
                    outputs: [.init("id", .uint32)]
                ) { call in
                    let replacesID: UInt32 = try call.argument(1)
                    tally.notify.add(1, ordering: .relaxed)
                    guard replacesID == 0 else {
                        tally.replacing.add(1, ordering: .relaxed)
                        return .reply([.uint32(replacesID)])
                    }
                    return .reply([.uint32(tally.lastID.add(1, ordering: .relaxed).newValue)])
                },
                DBusMethod("CloseNotification", inputs: [.init("id", .uint32)]) { call in
                    let id: UInt32 = try call.argument(0)
                    tally.close.add(1, ordering: .relaxed)
                    // Reason 3: closed by a call to CloseNotification.
                    try call.connection.emitSignal(
                        path: path, interface: busName, member: "NotificationClosed", [.uint32(id), .uint32(3)])
                    return .reply([])
                },
            ],
            signals: [
                DBusSignal("ActionInvoked", arguments: [.init("id", .uint32), .init("action_key", .string)]),
                DBusSignal("NotificationClosed", arguments: [.init("id", .uint32), .init("reason", .uint32)]),
            ])
    }
}

/// The server's counters: written on its loop thread, read from any.
private final class Tally: Sendable {
    let notify = Atomic<Int>(0)
    let replacing = Atomic<Int>(0)
    let close = Atomic<Int>(0)
    let lastID = Atomic<UInt32>(0)
}
