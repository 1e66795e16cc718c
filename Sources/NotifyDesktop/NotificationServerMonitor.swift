public import DBus
public import Logging
public import NotifyCore

/// Follows the desktop notification server (`org.freedesktop.Notifications`):
/// its name and capabilities, read when it appears and again whenever the
/// name changes owner; and, when none runs, starts one that D-Bus can
/// activate (``startOnDemand()``), as libnotify's own clients do by posting.
///
/// A server that has just taken the name may not answer yet (GNOME Shell's
/// notification helper owns the name a moment before it exports its
/// object): a failed query is asked again, never taken to mean "no server".
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
    /// How often, and after how long, a query that failed is asked again:
    /// 0.1 s doubling to 3.2 s, about 6 s in all. A server still silent by
    /// then is taken as it is (named "unknown", no capabilities), since it
    /// owns the name: its popups are posted and their failures logged.
    static let queryRetryDelays: [UInt64] = [100, 200, 400, 800, 1_600, 3_200].map { $0 * 1_000_000 }

    /// Weak: the connection's exported object owns services that hold
    /// this monitor.
    weak var connection: DBusConnection?
    let loop: EventLoop
    let logger: Logger
    /// Counts owner changes: an answer about an earlier owner is dropped.
    var generation = 0
    /// The name's owner now, whether or not it has answered yet.
    var owner: String?
    /// The running server, nil when there is none (or it is being asked).
    public private(set) var server: Server?
    /// Called on the loop thread whenever ``server`` changes.
    private var onChange: ((Server?) -> Void)?
    /// Where starting a server on demand stands (see ``startOnDemand()``).
    var activation = Activation.idle

    public init(connection: DBusConnection, loop: EventLoop, logger: Logger) {
        self.connection = connection
        self.loop = loop
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
        self.owner = owner
        let current = generation
        if server != nil {
            server = nil
            onChange?(nil)
        }
        guard let owner else {
            logger.info("no notification server on the bus")
            return
        }
        query("GetServerInformation", owner: owner, generation: current) { [weak self] information in
            self?.query("GetCapabilities", owner: owner, generation: current) { capabilities in
                guard let self, self.generation == current else { return }
                let list = capabilities.flatMap { try? [String](dbusValue: $0.first ?? .strings([])) } ?? []
                let profile = Self.profile(information ?? [], capabilities: list)
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

    /// Asks the owner `member`; `done` gets its reply's arguments, or nil
    /// once every retry failed. Nothing is called once the owner changed.
    private func query(
        _ member: String, owner: String, generation: Int, attempt: Int = 0, _ done: @escaping ([DBusValue]?) -> Void
    ) {
        guard self.generation == generation else { return }
        let failed = { [weak self] (error: DBusError) in
            guard let self, self.generation == generation else { return }
            guard attempt < Self.queryRetryDelays.count else {
                self.logger.warning(
                    "the notification server \(owner) did not answer \(member) after \(attempt + 1) tries (\(error)): taken as it is")
                done(nil)
                return
            }
            self.logger.debug("the notification server did not answer \(member) yet (\(error)); asking again")
            self.loop.scheduleTimer(afterNanoseconds: Self.queryRetryDelays[attempt]) { [weak self] in
                self?.query(member, owner: owner, generation: generation, attempt: attempt + 1, done)
            }
        }
        do {
            let message = try DBusMessage.methodCall(
                destination: owner, path: Self.path, interface: Self.busName, member: member)
            message.setAutoStart(false)
            guard let connection else { return }
            try connection.callAsync(message, timeoutMilliseconds: 5_000) { result in
                switch result {
                case .success(let reply): done((try? reply.arguments()) ?? [])
                case .failure(let error): failed(error)
                }
            }
        } catch {
            failed(error)
        }
    }
}
