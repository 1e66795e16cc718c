public import DBus
public import Logging
public import NotifyCore

/// Follows the desktop notification server (`org.freedesktop.Notifications`):
/// its name and capabilities, read when it appears and again whenever the
/// name changes owner. Queries never start a server by activation.
public final class NotificationServerMonitor {
    /// What is known of the running server.
    public struct Server: Hashable, Sendable {
        /// What it says of itself, and what it really does.
        public var profile: NotificationServerProfile
        /// Its unique name on the bus.
        public var owner: String

        /// Its capabilities, in the order it listed them.
        public var capabilities: [String]

        public init(profile: NotificationServerProfile, capabilities: [String], owner: String) {
            self.profile = profile
            self.capabilities = capabilities
            self.owner = owner
        }

        /// `name version` from `GetServerInformation`, e.g. `dunst 1.9.0 (2022-06-27)`.
        public var name: String { profile.description }
    }

    public static let busName = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    /// Weak: the connection's exported object owns services that hold
    /// this monitor.
    private weak var connection: DBusConnection?
    private let logger: Logger
    private var generation = 0
    /// The running server, nil when there is none (or it is being asked).
    public private(set) var server: Server?
    /// Called on the loop thread whenever ``server`` changes.
    private var onChange: ((Server?) -> Void)?

    public init(connection: DBusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Starts following the server; `onChange` runs on the loop thread
    /// whenever ``server`` changes.
    public func start(onChange: @escaping (Server?) -> Void) throws(DBusError) {
        self.onChange = onChange
        guard let connection else { throw DBusError(DBusError.Name.disconnected, "the connection is gone") }
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
                let list = (try? [String](dbusValue: capabilities.first ?? .strings([]))) ?? []
                let profile = Self.profile(information, capabilities: list)
                self.server = Server(profile: profile, capabilities: list, owner: owner)
                self.logger.info(
                    "notification server \(profile.description) (\(profile.vendor)) with capabilities \(list.joined(separator: ", ")); sounds: \(profile.sound), progress bars: \(profile.drawsProgress)")
                self.onChange?(self.server)
            }
        }
    }

    /// `GetServerInformation` answers name, vendor, version, spec version.
    private static func profile(_ information: [DBusValue], capabilities: [String]) -> NotificationServerProfile {
        let strings = information.map { value -> String in
            if case .string(let text) = value { return text }
            return ""
        }
        func field(_ index: Int) -> String { index < strings.count ? strings[index] : "" }
        return NotificationServerProfile(
            name: field(0).isEmpty ? "unknown" : field(0), vendor: field(1), version: field(2), capabilities: capabilities)
    }

    private func query(_ member: String, owner: String, _ done: @escaping ([DBusValue]) -> Void) {
        do {
            let message = try DBusMessage.methodCall(
                destination: owner, path: Self.path, interface: Self.busName, member: member)
            message.setAutoStart(false)
            try connection?.callAsync(message, timeoutMilliseconds: 5_000) { [logger] result in
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
