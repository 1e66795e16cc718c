import CDBus
import Glibc
public import Logging

extension DBusConnection {
    /// Opens a private connection to a bus without waiting for it: the
    /// socket is connected (local and immediate), then authentication and
    /// `Hello` run on `loop` like any other traffic, and `completion` runs
    /// there with the registered connection or the error.
    ///
    /// Unlike ``connect(to:private:logger:)``, nothing blocks the loop's
    /// thread on the bus (a daemon opening connections while it serves).
    ///
    /// - Throws: when the address is unknown or the socket cannot be
    ///   connected (then `completion` never runs).
    public static func open(
        to bus: Bus, on loop: EventLoop, logger: Logger = Logger(label: "dbus"),
        completion: @escaping (Result<DBusConnection, DBusError>) -> Void
    ) throws(DBusError) {
        _ = threadsInitializedForOpen
        let address = try bus.resolvedAddress()
        let raw = try withCDBusError("cannot connect to \(address)") { dbus_connection_open_private(address, $0) }
        guard let raw else { throw DBusError(DBusError.Name.noServer, "cannot connect to \(address)") }
        let connection = DBusConnection(raw: raw, isPrivate: true, logger: logger)
        do {
            try connection.attach(to: loop)
            let hello = try DBusMessage.methodCall(
                destination: busName, path: busPath, interface: busName, member: "Hello", arguments: [])
            try connection.callAsync(hello) { result in
                switch result {
                case .success(let reply):
                    guard case .string(let name)? = try? reply.arguments().first,
                        dbus_bus_set_unique_name(raw, name) != 0
                    else {
                        connection.close()
                        completion(.failure(.failed("the bus at \(address) answered Hello with '\(reply.signature)'")))
                        return
                    }
                    completion(.success(connection))
                case .failure(let error):
                    connection.close()
                    completion(.failure(error))
                }
            }
        } catch {
            connection.close()
            throw error
        }
    }
}

extension DBusConnection.Bus {
    /// The address libdbus would use for this bus: the environment's
    /// (`DBUS_SESSION_BUS_ADDRESS`, `DBUS_SYSTEM_BUS_ADDRESS`), else the
    /// standard socket (`$XDG_RUNTIME_DIR/bus`, `/run/dbus/system_bus_socket`).
    public func resolvedAddress() throws(DBusError) -> String {
        switch self {
        case .address(let address):
            return address
        case .session:
            if let address = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty {
                return address
            }
            guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty else {
                throw DBusError(
                    DBusError.Name.badAddress, "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set")
            }
            return "unix:path=\(runtime)/bus"
        case .system:
            if let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty {
                return address
            }
            return "unix:path=/run/dbus/system_bus_socket"
        }
    }
}

private let threadsInitializedForOpen: Bool = dbus_threads_init_default() != 0
