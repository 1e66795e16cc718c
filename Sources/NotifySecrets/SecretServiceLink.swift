import CLibsecret

/// Why the Secret Service could not be reached, in words.
struct SecretServiceUnavailable: Error {
    let reason: String
}

/// The keeper thread's side: a D-Bus connection of its own (never GIO's
/// process-wide session bus), the Secret Service proxy on it, and the three
/// operations (in SecretServiceLink+Operations.swift). Used on the keeper's
/// thread only, with its context as the thread default.
final class SecretServiceLink {
    private let busAddress: String?
    let context: OpaquePointer
    /// The bound on each call, in seconds.
    let seconds: Int
    private var connection: OpaquePointer?
    private var service: UnsafeMutablePointer<SecretService>?

    init(busAddress: String?, context: OpaquePointer, timeoutSeconds: Int) {
        self.busAddress = busAddress
        self.context = context
        seconds = timeoutSeconds
    }

    /// Runs one asynchronous call on the keeper's context, within the bound.
    func run(
        _ start: (UnsafeMutablePointer<GCancellable>, GAsyncReadyCallback, gpointer) -> Void
    ) -> (completion: AsyncCompletion, timedOut: Bool) {
        GLibCall.run(on: context, seconds: seconds, start)
    }

    /// Drops the proxy and the connection (closing it).
    func close() {
        if let service { g_object_unref(service) }
        service = nil
        if let connection { g_object_unref(UnsafeMutableRawPointer(connection)) }
        connection = nil
        while g_main_context_iteration(context, 0) != 0 {}
    }

    /// The proxy, made (with its connection) on first use and again after
    /// the bus connection closed (the bus restarted, or went away).
    func readyService() throws(SecretServiceUnavailable) -> UnsafeMutablePointer<SecretService> {
        if let connection, g_dbus_connection_is_closed(connection) != 0 { close() }
        if let service { return service }
        let connection = try connect()
        let call = run { cancellable, callback, data in
            notifyd_secret_service_new(connection, cancellable, callback, data)
        }
        var error: UnsafeMutablePointer<GError>?
        guard let service = notifyd_secret_service_new_finish(call.completion.source, call.completion.result, &error)
        else {
            g_object_unref(UnsafeMutableRawPointer(connection))
            throw SecretServiceUnavailable(
                reason: reason(error, doing: "opening the Secret Service", timedOut: call.timedOut))
        }
        self.connection = connection
        self.service = service
        return service
    }

    /// A new connection to the keeper's bus: the address it was given, or
    /// the session bus's as GIO finds it (DBUS_SESSION_BUS_ADDRESS, else
    /// $XDG_RUNTIME_DIR/bus), read now.
    private func connect() throws(SecretServiceUnavailable) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        var address = busAddress
        if address == nil {
            guard let found = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error) else {
                throw SecretServiceUnavailable(
                    reason: reason(error, doing: "finding the session bus", timedOut: false))
            }
            address = String(cString: found)
            g_free(found)
        }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        let call = run { cancellable, callback, data in
            g_dbus_connection_new_for_address(address, flags, nil, cancellable, callback, data)
        }
        guard let connection = g_dbus_connection_new_for_address_finish(call.completion.result, &error) else {
            throw SecretServiceUnavailable(
                reason: reason(error, doing: "connecting to the session bus", timedOut: call.timedOut))
        }
        return connection
    }

    /// ``GLibFailure/take(_:doing:timedOut:timeoutSeconds:)`` with this link's bound.
    func reason(_ error: UnsafeMutablePointer<GError>?, doing: String, timedOut: Bool) -> String {
        GLibFailure.take(error, doing: doing, timedOut: timedOut, timeoutSeconds: seconds)
    }
}
