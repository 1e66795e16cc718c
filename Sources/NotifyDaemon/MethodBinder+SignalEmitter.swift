import DBus
import Logging

/// Binds interface declarations to a service's methods. The interface
/// owns its service (the exported object owns the interfaces), so the
/// service lives as long as the object is exported.
///
/// With no service (a declaration used only for introspection files) every
/// method answers `Failed`; the daemon never exports such an interface.
struct MethodBinder<Service: AnyObject> {
    private let service: Service?

    init(_ service: Service?) {
        self.service = service
    }

    func callAsFunction(
        _ method: @escaping (Service) -> (DBusMethodCall) throws -> DBusMethodResult
    ) -> (DBusMethodCall) throws -> DBusMethodResult {
        { [service] call in
            guard let service else { throw DBusError.failed("\(call.member) is not available") }
            return try method(service)(call)
        }
    }
}

/// Emits notifyd's own signals from its object path. It refers to the
/// connection weakly: the connection owns the exported object, whose
/// services own this emitter.
final class SignalEmitter {
    private weak var connection: DBusConnection?
    private let path: String

    init(connection: DBusConnection?, path: String) {
        self.connection = connection
        self.path = path
    }

    func emit(_ interface: String, _ member: String, _ arguments: [DBusValue]) {
        guard let connection else { return }
        do {
            try connection.emitSignal(path: path, interface: interface, member: member, arguments)
        } catch {
            connection.logger.error("cannot emit \(interface).\(member): \(error)")
        }
    }
}
