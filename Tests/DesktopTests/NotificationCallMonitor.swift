import DBus
import Foundation
import NotifyTesting

/// What a notification server received, seen from the bus itself: a
/// ``DBusMonitor`` that records every `org.freedesktop.Notifications` call
/// with its reply, the server's signals, notifyd's `NotificationPosted`
/// and the events notifyd was sent, in the order the bus routed them
/// (the records are in NotificationCallMonitor+Records.swift).
final class NotificationCallMonitor: @unchecked Sendable {
    // Unchecked: the monitor thread writes the store and the test reads it,
    // both under the store's lock; `monitor` is Sendable.

    static let rules = [
        "type='method_call',interface='org.freedesktop.Notifications'",
        "type='signal',interface='org.freedesktop.Notifications'",
        "type='method_return'",
        "type='error'",
        "type='signal',interface='org.notifyd.Notifyd1.Sessions',member='NotificationPosted'",
        "type='method_call',interface='org.notifyd.Notifyd1.Sessions',member='HandleEventsForBackgroundSession'",
    ]

    private let store = Store()

    /// Leaves out what these connections send and what is sent to them:
    /// the desktop's own (``NotificationServerHost/internalPeers()``).
    func ignore(peers: [String]) { store.locked { $0.ignored.formUnion(peers) } }
    private let finished = DispatchSemaphore(value: 0)

    /// Becomes a monitor of the bus at `address`, then records on a thread
    /// of its own until released.
    init(address: String) throws {
        let monitor = try DBusMonitor(bus: .address(address), rules: Self.rules)
        let (store, finished) = (store, finished)
        let thread = Thread {
            defer { finished.signal() }
            while !store.isStopping {
                // Bounded, to notice `isStopping`; ends when the bus goes away.
                guard let message = try? monitor.next(timeoutMilliseconds: 50) else {
                    if monitor.isConnected { continue } else { return }
                }
                store.record(message)
            }
        }
        thread.name = "notification-call-monitor"
        thread.start()
    }

    deinit {
        store.stop()
        finished.wait()
    }

    // MARK: Reading what was recorded

    var notifyCalls: [Notify] { store.locked { $0.notifies } }
    var posted: [Posted] { store.locked { $0.posts } }
    var sentEvents: [SentEvent] { store.locked { $0.events } }
    var timeline: [Entry] { store.locked { $0.entries } }

    /// What the monitor thread records (the thread holds it, not the monitor).
    private final class Store: @unchecked Sendable {
        private let lock = NSLock()
        private var stopping = false
        var notifies: [Notify] = []
        var posts: [Posted] = []
        var events: [SentEvent] = []
        var entries: [Entry] = []
        /// Notify calls waiting for their reply, by sender and serial.
        private var awaitingReply: [String: Int] = [:]
        var ignored: Set<String> = []

        var isStopping: Bool { locked { $0.stopping } }
        func stop() { locked { $0.stopping = true } }

        func locked<T>(_ body: (Store) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(self)
        }

        func record(_ message: DBusMessage) {
            let arguments = (try? message.arguments()) ?? []
            lock.lock()
            defer { lock.unlock() }
            if let sender = message.sender, ignored.contains(sender) { return }
            if let destination = message.destination, ignored.contains(destination) { return }
            switch (message.kind, message.interface, message.member) {
            case (.methodCall, "org.freedesktop.Notifications", "Notify"):
                guard arguments.count == 8, let appName = try? arguments.decode(0, as: String.self),
                    let replaces = try? arguments.decode(1, as: UInt32.self), let icon = try? arguments.decode(2, as: String.self),
                    let summary = try? arguments.decode(3, as: String.self), let body = try? arguments.decode(4, as: String.self),
                    let actions = try? arguments.decode(5, as: [String].self),
                    let hints = try? arguments.decode(6, as: [String: DBusValue].self),
                    let timeout = try? arguments.decode(7, as: Int32.self)
                else { return }
                notifies.append(
                    Notify(
                        appName: appName, replacesID: replaces, icon: icon, summary: summary, body: body, actions: actions,
                        hints: hints, expireTimeout: timeout, id: nil, error: nil, order: entries.count))
                awaitingReply["\(message.sender ?? "") \(message.serial)"] = notifies.count - 1
                entries.append(.notify(notifies.count - 1))
            case (.methodCall, "org.freedesktop.Notifications", "CloseNotification"):
                if let id = try? arguments.decode(0, as: UInt32.self) { entries.append(.closeNotification(id)) }
            case (.signal, "org.freedesktop.Notifications", "NotificationClosed"):
                if arguments.count == 2, let id = try? arguments.decode(0, as: UInt32.self),
                    let reason = try? arguments.decode(1, as: UInt32.self)
                {
                    entries.append(.notificationClosed(id, reason: reason))
                }
            case (.signal, "org.freedesktop.Notifications", "ActionInvoked"):
                if arguments.count == 2, let id = try? arguments.decode(0, as: UInt32.self),
                    let action = try? arguments.decode(1, as: String.self)
                {
                    entries.append(.actionInvoked(id, action))
                }
            case (.signal, "org.notifyd.Notifyd1.Sessions", "NotificationPosted"):
                guard arguments.count == 4, let app = try? arguments.decode(0, as: String.self),
                    let session = try? arguments.decode(1, as: String.self), let id = try? arguments.decode(2, as: UInt32.self),
                    let details = try? arguments.decode(3, as: [String: DBusValue].self)
                else { return }
                posts.append(Posted(app: app, session: session, id: id, details: details, order: entries.count))
                entries.append(.posted(posts.count - 1))
            case (.methodCall, "org.notifyd.Notifyd1.Sessions", "HandleEventsForBackgroundSession"):
                guard arguments.count == 3, let session = try? arguments.decode(0, as: String.self),
                    let app = try? arguments.decode(1, as: String.self),
                    let event = try? arguments.decode(2, as: [String: DBusValue].self)
                else { return }
                events.append(SentEvent(session: session, app: app, event: event, order: entries.count))
                entries.append(.sent(events.count - 1))
            case (.methodReturn, _, _), (.error, _, _):
                let key = "\(message.destination ?? "") \(message.replySerial)"
                guard let index = awaitingReply.removeValue(forKey: key) else { return }
                if message.kind == .methodReturn, let id = try? arguments.decode(0, as: UInt32.self) {
                    notifies[index].id = id
                } else {
                    notifies[index].error = message.errorName ?? "error"
                }
            default:
                break
            }
        }
    }
}
