import DBus
import Logging
import NotifyCore

/// One shown app's place in the LauncherEntry pool: a private bus
/// connection that sends only that app's entry and answers
/// `com.canonical.Unity.LauncherEntry.Query()` for docks that ask.
final class LauncherEntrySlot {
    let app: AppID
    private let logger: Logger
    private var connection: DBusConnection?
    private var isClosed = false
    /// What the connection sent last (nil before its first send).
    private var sent: LauncherEntry?
    /// What to send once the connection is open, in order (every change is
    /// published, as SPEC says; the newest 8 are kept).
    private var pending: [LauncherEntry] = []
    /// Close once what is pending has been sent.
    private var closesWhenSent = false
    static let pendingLimit = 8

    init(app: AppID, logger: Logger) {
        self.app = app
        self.logger = logger
    }

    /// The app's entry now: the newest waiting to be sent, else the last sent (for `Query()`).
    var latest: LauncherEntry { pending.last ?? sent ?? LauncherEntry() }

    /// Opens the connection without blocking; `completion` gets nil once it
    /// is open and registered, else the error (also when opening threw).
    func open(bus: DBusConnection.Bus, loop: EventLoop, completion: @escaping (DBusError?) -> Void) {
        do throws(DBusError) {
            // Strong: a slot given up while opening still sends what waits
            // for it (``closeWhenSent()``); the call's end releases it.
            try DBusConnection.open(to: bus, on: loop, logger: logger) { [self] result in
                guard !self.isClosed else {
                    if case .success(let connection) = result { connection.close() }
                    return
                }
                switch result {
                case .success(let connection):
                    do throws(DBusError) {
                        try connection.export(self.queryObject())
                    } catch {
                        connection.close()
                        completion(error)
                        return
                    }
                    self.connection = connection
                    let pending = self.pending
                    self.pending.removeAll()
                    for entry in pending { self.send(entry) }
                    if self.closesWhenSent {
                        self.close()
                        return
                    }
                    completion(nil)
                case .failure(let error):
                    completion(error)
                }
            }
        } catch {
            loop.runSoon { completion(error) }
        }
    }

    /// Sends `entry` unless it is what was sent last (or `force`); before
    /// the connection is open, the latest entry waits for it.
    func send(_ entry: LauncherEntry, force: Bool = false) {
        guard let connection else {
            guard entry != pending.last || force else { return }
            pending.append(entry)
            if pending.count > Self.pendingLimit { pending.removeFirst() }
            return
        }
        guard force || entry != (sent ?? LauncherEntry()) else { return }
        do {
            try connection.emitSignal(
                path: LauncherEntry.objectPath(app), interface: LauncherEntry.interfaceName, member: "Update",
                [.string(LauncherEntry.appURI(app)), entry.properties])
            sent = entry
        } catch {
            logger.warning("cannot send the launcher entry of \(app): \(error)")
        }
    }

    /// Flushes what was sent and closes the connection.
    func close() {
        isClosed = true
        pending.removeAll()
        connection?.close()
        connection = nil
    }

    /// Closes the connection once what waits for it has been sent (at once
    /// when it is open).
    func closeWhenSent() {
        guard connection == nil, !pending.isEmpty else {
            close()
            return
        }
        closesWhenSent = true
    }

    /// Answers `com.canonical.Unity.LauncherEntry.Query()` with the entry.
    private func queryObject() -> DBusObject {
        let entryType = DBusType.dictionary(key: .string, value: .variant)
        let interface = DBusInterface(
            LauncherEntry.interfaceName,
            methods: [
                DBusMethod("Query", outputs: [DBusArgument("app_uri", .string), DBusArgument("properties", entryType)]) {
                    [weak self] _ in
                    guard let self else { return .reply([.string(""), LauncherEntry().properties]) }
                    return .reply([.string(LauncherEntry.appURI(self.app)), self.latest.properties])
                }
            ],
            signals: [
                DBusSignal(
                    "Update", arguments: [DBusArgument("app_uri", .string), DBusArgument("properties", entryType)])
            ])
        return DBusObject(path: LauncherEntry.objectPath(app), interfaces: [interface])
    }
}
