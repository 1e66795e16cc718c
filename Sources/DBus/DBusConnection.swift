import CDBus
public import Logging

/// A connection to a message bus (or a peer), driven by one ``EventLoop``.
///
/// A connection belongs to the thread of the loop it is attached to: send,
/// call and export from that thread only. Blocking calls also work before
/// a connection is attached, which is all a command-line client needs.
public final class DBusConnection {
    /// The libdbus connection; this object owns one reference.
    let raw: OpaquePointer
    /// Whether this is a private connection (closed when released).
    public let isPrivate: Bool
    /// Where the connection logs what it cannot tell a peer.
    public let logger: Logger

    var loopBinding: LoopBinding?
    var subscriptions: [UInt64: Subscription] = [:]
    var nextSubscriptionID: UInt64 = 1
    var exportedPaths: [String] = []
    var disconnectHandlers: [() -> Void] = []
    /// Async calls still waiting for their reply, failed on disconnect
    /// (libdbus drops them then without calling their notify function).
    var pendingCalls: [ObjectIdentifier: (call: OpaquePointer, box: PendingCallBox)] = [:]
    private var filterInstalled = false

    /// Which bus to connect to.
    public enum Bus: Sendable {
        /// The user's session bus (`DBUS_SESSION_BUS_ADDRESS`).
        case session
        /// The system bus.
        case system
        /// A bus at an address, e.g. `unix:path=/run/user/1000/bus`.
        case address(String)
    }

    init(raw: OpaquePointer, isPrivate: Bool, logger: Logger) {
        self.raw = raw
        self.isPrivate = isPrivate
        self.logger = logger
        dbus_connection_set_exit_on_disconnect(raw, 0)
    }

    /// Connects to a bus and registers with it (`Hello`).
    ///
    /// - Parameter isPrivate: a private connection is this object's alone;
    ///   a shared one is the process-wide connection libdbus keeps per bus.
    public static func connect(
        to bus: Bus, private isPrivate: Bool = true, logger: Logger = Logger(label: "dbus")
    ) throws(DBusError) -> DBusConnection {
        _ = threadsInitialized
        switch bus {
        case .session, .system:
            let type = bus.isSession ? DBUS_BUS_SESSION : DBUS_BUS_SYSTEM
            let raw = try withCDBusError("cannot connect to the \(bus.isSession ? "session" : "system") bus") {
                isPrivate ? dbus_bus_get_private(type, $0) : dbus_bus_get(type, $0)
            }
            guard let raw else { throw DBusError(DBusError.Name.noServer, "cannot connect to the bus") }
            return DBusConnection(raw: raw, isPrivate: isPrivate, logger: logger)
        case .address(let address):
            let raw = try withCDBusError("cannot connect to \(address)") {
                isPrivate ? dbus_connection_open_private(address, $0) : dbus_connection_open(address, $0)
            }
            guard let raw else { throw DBusError(DBusError.Name.noServer, "cannot connect to \(address)") }
            let connection = DBusConnection(raw: raw, isPrivate: isPrivate, logger: logger)
            if dbus_bus_get_unique_name(raw) == nil {
                try withCDBusError("cannot register with the bus at \(address)") { dbus_bus_register(raw, $0) }
            }
            return connection
        }
    }

    /// Closes a private connection and drops every registration.
    deinit {
        detachFromLoop()
        if filterInstalled {
            dbus_connection_remove_filter(raw, connectionFilter, Unmanaged.passUnretained(self).toOpaque())
        }
        for path in exportedPaths { dbus_connection_unregister_object_path(raw, path) }
        for entry in pendingCalls.values {
            dbus_pending_call_cancel(entry.call)
            dbus_pending_call_unref(entry.call)
        }
        if isPrivate { dbus_connection_close(raw) }
        dbus_connection_unref(raw)
    }

    /// Sends all queued messages and closes a private connection now.
    public func close() {
        if dbus_connection_get_is_connected(raw) != 0 { dbus_connection_flush(raw) }
        if isPrivate { dbus_connection_close(raw) }
    }

    /// This connection's unique name on the bus, e.g. `:1.42`.
    public var uniqueName: String? { dbus_bus_get_unique_name(raw).map { String(cString: $0) } }

    /// Whether the connection is still open.
    public var isConnected: Bool { dbus_connection_get_is_connected(raw) != 0 }

    /// Runs `handler` when the connection is lost (the bus went away).
    public func onDisconnect(_ handler: @escaping () -> Void) {
        installFilter()
        disconnectHandlers.append(handler)
    }

    // MARK: Sending

    /// Queues a message; it is written when the socket is writable.
    @discardableResult
    public func send(_ message: DBusMessage) throws(DBusError) -> UInt32 {
        var serial: UInt32 = 0
        try checkMemory(dbus_connection_send(raw, message.raw, &serial))
        return serial
    }

    /// Writes every queued message now, blocking.
    public func flush() {
        dbus_connection_flush(raw)
    }

    /// Emits a signal, to everyone or to one `destination`.
    public func emitSignal(
        path: String, interface: String, member: String,
        _ arguments: [DBusValue] = [], destination: String? = nil
    ) throws(DBusError) {
        try send(.signal(path: path, interface: interface, member: member, arguments: arguments, destination: destination))
    }

    /// Calls a method and blocks until its reply; an error reply is thrown.
    ///
    /// - Parameter timeoutMilliseconds: -1 is libdbus's default (25 s).
    public func call(_ message: DBusMessage, timeoutMilliseconds: Int32 = -1) throws(DBusError) -> DBusMessage {
        // Error replies keep the peer's name and message untouched.
        let reply = try withCDBusError(nil) {
            dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMilliseconds, $0)
        }
        guard let reply else {
            let what = "\(message.interface ?? "").\(message.member ?? "") on \(message.destination ?? "peer")"
            throw DBusError.failed("call to \(what) got no reply")
        }
        let replyMessage = DBusMessage(taking: reply)
        if let error = replyMessage.asError() { throw error }
        return replyMessage
    }

    /// Calls a method and blocks; returns the reply's arguments.
    public func call(
        destination: String, path: String, interface: String, member: String,
        _ arguments: [DBusValue] = [], timeoutMilliseconds: Int32 = -1
    ) throws(DBusError) -> [DBusValue] {
        let message = try DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        return try call(message, timeoutMilliseconds: timeoutMilliseconds).arguments()
    }

    /// Calls a method without blocking; `completion` runs on the loop thread
    /// with the reply or the error (an error reply, a timeout, a lost bus).
    public func callAsync(
        _ message: DBusMessage, timeoutMilliseconds: Int32 = -1,
        completion: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) throws(DBusError) {
        var pending: OpaquePointer?
        try checkMemory(dbus_connection_send_with_reply(raw, message.raw, &pending, timeoutMilliseconds))
        guard let pending else {
            throw DBusError(DBusError.Name.disconnected, "the connection to the bus is closed")
        }
        let box = PendingCallBox(completion)
        let key = ObjectIdentifier(box)
        box.finished = { [weak self] in
            guard let self, let entry = self.pendingCalls.removeValue(forKey: key) else { return }
            dbus_pending_call_unref(entry.call)
        }
        pendingCalls[key] = (pending, box)  // keeps libdbus's reference until the call ends
        let data = Unmanaged.passRetained(box).toOpaque()
        try checkMemory(dbus_pending_call_set_notify(pending, pendingCallNotify, data, releasePendingCallBox))
    }

    /// Ends every async call still waiting: the bus is gone.
    func failPendingCalls() {
        let calls = pendingCalls
        pendingCalls.removeAll()
        for (_, entry) in calls {
            entry.box.complete(.failure(DBusError(DBusError.Name.disconnected, "the connection to the bus was lost")))
            dbus_pending_call_cancel(entry.call)
            dbus_pending_call_unref(entry.call)
        }
    }
}

extension DBusConnection.Bus {
    var isSession: Bool {
        if case .session = self { return true }
        return false
    }
}

/// libdbus must know the process may use it from several threads (the
/// daemon's GLib thread never touches libdbus, but tests and clients may).
private let threadsInitialized: Bool = dbus_threads_init_default() != 0

/// Holds a completion handler while libdbus owns the pending call.
final class PendingCallBox {
    private var completion: ((Result<DBusMessage, DBusError>) -> Void)?
    /// Lets the connection forget the call once it has ended.
    var finished: (() -> Void)?

    init(_ completion: @escaping (Result<DBusMessage, DBusError>) -> Void) { self.completion = completion }

    /// Ends the call once: later results (a reply racing a disconnect) are dropped.
    func complete(_ result: Result<DBusMessage, DBusError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
        finished?()
        finished = nil
    }
}

private let pendingCallNotify: DBusPendingCallNotifyFunction = { pending, data in
    guard let pending, let data else { return }
    let box = Unmanaged<PendingCallBox>.fromOpaque(data).takeUnretainedValue()
    guard let raw = dbus_pending_call_steal_reply(pending) else {
        box.complete(.failure(DBusError(DBusError.Name.noReply, "no reply")))
        return
    }
    let reply = DBusMessage(taking: raw)
    if let error = reply.asError() {
        box.complete(.failure(error))
    } else {
        box.complete(.success(reply))
    }
}

private let releasePendingCallBox: DBusFreeFunction = { data in
    guard let data else { return }
    Unmanaged<PendingCallBox>.fromOpaque(data).release()
}

extension DBusConnection {
    func installFilter() {
        guard !filterInstalled else { return }
        filterInstalled = true
        dbus_connection_add_filter(raw, connectionFilter, Unmanaged.passUnretained(self).toOpaque(), nil)
    }
}

/// The connection's one filter: routes signals to subscriptions and
/// notices the loss of the bus. It never consumes a message.
private let connectionFilter: DBusHandleMessageFunction = { _, rawMessage, data in
    guard let rawMessage, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let connection = Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue()
    connection.filter(DBusMessage(retaining: rawMessage))
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}
