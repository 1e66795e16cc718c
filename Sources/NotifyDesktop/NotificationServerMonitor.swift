public import DBus
public import Logging

/// Follows the desktop notification server (`org.freedesktop.Notifications`):
/// its name and capabilities, read when it appears and again whenever the
/// name changes owner. Queries never start a server by activation.
public final class NotificationServerMonitor {
    /// What is known of the running server.
    public struct Server: Hashable, Sendable {
        /// `name version` from `GetServerInformation`, e.g. `dunst 1.9.0`.
        public var name: String
        public var capabilities: [String]
        public var owner: String

        public init(name: String, capabilities: [String], owner: String) {
            self.name = name
            self.capabilities = capabilities
            self.owner = owner
        }
    }

    public static let busName = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    private let connection: DBusConnection
    private let logger: Logger
    private var generation = 0
    /// The running server, nil when there is none (or it is being asked).
    public private(set) var server: Server?
    /// Called on the loop thread whenever ``server`` changes.
    public var onChange: ((Server?) -> Void)?

    public init(connection: DBusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Starts following the server.
    public func start() throws(DBusError) {
        try connection.watchNameOwner(Self.busName) { [weak self] owner in self?.ownerChanged(owner) }
    }

    private func ownerChanged(_ owner: String?) {
        generation += 1
        let current = generation
        if server != nil {
            server = nil
            onChange?(nil)
        }
        guard let owner else {
            logger.info("no notification server on the bus")
            return
        }
        query("GetServerInformation", owner: owner) { [weak self] information in
            self?.query("GetCapabilities", owner: owner) { capabilities in
                guard let self, self.generation == current else { return }
                let name = Self.serverName(information)
                let list = (try? [String](dbusValue: capabilities.first ?? .strings([]))) ?? []
                self.server = Server(name: name, capabilities: list, owner: owner)
                self.logger.info("notification server \(name) with capabilities \(list.joined(separator: ", "))")
                self.onChange?(self.server)
            }
        }
    }

    private static func serverName(_ information: [DBusValue]) -> String {
        let strings = information.compactMap { value -> String? in
            if case .string(let text) = value { return text }
            return nil
        }
        guard strings.count >= 3 else { return strings.first ?? "unknown" }
        return "\(strings[0]) \(strings[2])"
    }

    private func query(_ member: String, owner: String, _ done: @escaping ([DBusValue]) -> Void) {
        do {
            let message = try DBusMessage.methodCall(
                destination: owner, path: Self.path, interface: Self.busName, member: member)
            message.setAutoStart(false)
            try connection.callAsync(message, timeoutMilliseconds: 5_000) { [logger] result in
                switch result {
                case .success(let reply): done((try? reply.arguments()) ?? [])
                case .failure(let error): logger.warning("notification server did not answer \(member): \(error)")
                }
            }
        } catch {
            logger.warning("cannot ask the notification server: \(error)")
        }
    }
}
