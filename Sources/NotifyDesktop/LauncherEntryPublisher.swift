public import DBus
public import Logging
public import NotifyCore

/// Publishes badges (and progress) to docks as Unity LauncherEntry signals.
///
/// Docks (KDE Plasma, Dash to Dock, Plank) tie an entry to the connection
/// that sent it and keep one app per connection, so each visible app gets a
/// private bus connection of its own, opened on its first visible entry and
/// closed once the entry is back to nothing. Each connection also answers
/// `Query()` for docks that ask. When a dock takes `com.canonical.Unity`,
/// every visible entry is sent again.
///
/// An entry is state a dock displays, not an event: the changes of one
/// turn of the event loop (a burst of events committed together) are sent
/// as one update per app, with the latest values.
public final class LauncherEntryPublisher {
    private let bus: DBusConnection.Bus
    private let loop: EventLoop
    private let logger: Logger
    private var entries: [AppID: LauncherEntry] = [:]
    private var published: [AppID: LauncherEntry] = [:]
    private var changed: Set<AppID> = []
    private var connections: [AppID: DBusConnection] = [:]

    /// - Parameter bus: where to open the per-app connections.
    public init(bus: DBusConnection.Bus, loop: EventLoop, logger: Logger) {
        self.bus = bus
        self.loop = loop
        self.logger = logger
    }

    /// Number of per-app connections open now.
    public var openConnections: Int { connections.count }

    /// The unique bus name an app's entry is sent from, if it has one.
    public func senderName(of app: AppID) -> String? { connections[app]?.uniqueName }

    /// Follows `com.canonical.Unity` on `connection` and re-sends every
    /// visible entry whenever a dock takes the name.
    public func followDocks(on connection: DBusConnection) throws(DBusError) {
        var first = true
        try connection.watchNameOwner("com.canonical.Unity") { [weak self] owner in
            defer { first = false }
            guard let self, owner != nil, !first else { return }
            self.logger.info("a dock took com.canonical.Unity; re-sending \(self.entries.count) launcher entries")
            self.republishAll()
        }
    }

    /// Sets an app's badge count and publishes the entry if it changed.
    public func setCount(_ count: UInt32, for app: AppID) {
        var entry = entries[app] ?? LauncherEntry()
        entry.count = count
        update(app, entry)
    }

    /// Sets an app's progress (nil: none running) and publishes it.
    public func setProgress(_ progress: Double?, for app: AppID) {
        var entry = entries[app] ?? LauncherEntry()
        entry.progress = progress
        update(app, entry)
    }

    /// Sends every visible entry again (start-up, dock restart).
    public func republishAll() {
        for (app, entry) in entries.sorted(by: { $0.key < $1.key }) { publish(app, entry) }
    }

    private func update(_ app: AppID, _ entry: LauncherEntry) {
        entries[app] = entry.isVisible ? entry : nil
        if changed.isEmpty { loop.runSoon { [weak self] in self?.publishChanged() } }
        changed.insert(app)
    }

    /// Sends one update per app changed since the last turn.
    private func publishChanged() {
        let apps = changed
        changed.removeAll()
        for app in apps.sorted() {
            let entry = entries[app] ?? LauncherEntry()
            guard entry != published[app] ?? LauncherEntry() else { continue }
            publish(app, entry)
            published[app] = entry.isVisible ? entry : nil
            if !entry.isVisible, let connection = connections.removeValue(forKey: app) {
                connection.close()
            }
        }
    }

    private func publish(_ app: AppID, _ entry: LauncherEntry) {
        do {
            let connection = try connectionForApp(app)
            try connection.emitSignal(
                path: LauncherEntry.objectPath(app), interface: LauncherEntry.interfaceName, member: "Update",
                [.string(LauncherEntry.appURI(app)), entry.properties])
        } catch {
            logger.warning("cannot publish the launcher entry of \(app): \(error)")
        }
    }

    private func connectionForApp(_ app: AppID) throws(DBusError) -> DBusConnection {
        if let connection = connections[app] { return connection }
        let connection = try DBusConnection.connect(to: bus, private: true, logger: logger)
        try connection.attach(to: loop)
        try connection.export(queryObject(for: app))
        connections[app] = connection
        return connection
    }

    /// Answers `com.canonical.Unity.LauncherEntry.Query()` with the entry.
    private func queryObject(for app: AppID) -> DBusObject {
        let interface = DBusInterface(
            LauncherEntry.interfaceName,
            methods: [
                DBusMethod(
                    "Query",
                    outputs: [
                        DBusArgument("app_uri", .string),
                        DBusArgument("properties", .dictionary(key: .string, value: .variant)),
                    ]
                ) { [weak self] _ in
                    let entry = self?.entries[app] ?? LauncherEntry()
                    return .reply([.string(LauncherEntry.appURI(app)), entry.properties])
                }
            ],
            signals: [
                DBusSignal(
                    "Update",
                    arguments: [
                        DBusArgument("app_uri", .string),
                        DBusArgument("properties", .dictionary(key: .string, value: .variant)),
                    ])
            ])
        return DBusObject(path: LauncherEntry.objectPath(app), interfaces: [interface])
    }
}
