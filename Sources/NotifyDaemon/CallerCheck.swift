import DBus
import Glibc
import Logging
import NotifyCore

/// Tells who a bus connection is, and whether it may act for an app.
///
/// The caller's user and process ID come from the bus
/// (`GetConnectionCredentials`), its sandbox from
/// `/proc/PID/root/.flatpak-info` and its launch scope from
/// `/proc/PID/cgroup`. Identities are cached per unique name (unique names
/// are never reused on a bus) and forgotten when the name leaves.
final class CallerCheck {
    private let connection: DBusConnection
    private let logger: Logger
    private let daemonUserID = getuid()
    private var cache: [String: CallerIdentity] = [:]
    static let cacheLimit = 4096

    init(connection: DBusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Throws `NotPermitted` unless the method's caller may act for `app`.
    func authorize(_ call: DBusMethodCall, for app: AppID) throws(NotifydError) {
        try CallerPolicy.check(identity(of: call.sender), actingFor: app, daemonUserID: daemonUserID)
    }

    /// Throws `NotPermitted` unless the caller may act for every app
    /// (ClearAllBadges): a sandboxed app may not.
    func authorizeForAllApps(_ call: DBusMethodCall) throws(NotifydError) {
        let caller = identity(of: call.sender)
        guard case .host = caller.sandbox, caller.userID == daemonUserID else {
            throw NotifydError(.notPermitted, "only host processes of the user may act for every app at once")
        }
    }

    /// Which apps a caller's listings show: all on the host, only its own
    /// in a sandbox, none when that cannot be told.
    enum Visibility {
        case everyApp, onlyApp(AppID), noApp

        func shows(_ app: AppID) -> Bool {
            switch self {
            case .everyApp: true
            case .onlyApp(let own): own == app
            case .noApp: false
            }
        }
    }

    func visibility(for call: DBusMethodCall) -> Visibility {
        let caller = identity(of: call.sender)
        guard caller.userID == daemonUserID else { return .noApp }
        switch caller.sandbox {
        case .host: return .everyApp
        case .flatpak(let app?): return .onlyApp(app)
        case .flatpak(nil), .unknown: return .noApp
        }
    }

    /// For a worker signal: nil when it may act for `app`, else why not. A
    /// sender that already left the bus (`gdbus emit` exits at once) cannot
    /// be asked; sandboxed apps speak through their long-lived
    /// xdg-dbus-proxy connection, so such a sender is taken as a host
    /// process of the user.
    func refusal(ofSignalFrom sender: String, for app: AppID) -> NotifydError? {
        guard let caller = lookUp(sender) else {
            logger.debug("worker \(sender) left the bus before it could be identified; taken as a host process")
            return nil
        }
        do {
            try CallerPolicy.check(caller, actingFor: app, daemonUserID: daemonUserID)
            return nil
        } catch {
            return error
        }
    }

    /// A name left the bus: forget its identity.
    func forget(_ name: String) {
        cache[name] = nil
    }

    private func identity(of sender: String) -> CallerIdentity {
        lookUp(sender) ?? CallerIdentity(userID: UInt32.max, processID: nil, sandbox: .unknown)
    }

    /// The identity of a connection, nil when it has left the bus.
    private func lookUp(_ sender: String) -> CallerIdentity? {
        if let known = cache[sender] { return known }
        let credentials: [String: DBusValue]
        do {
            credentials = try connection.callBus("GetConnectionCredentials", [.string(sender)]).decode(0)
        } catch {
            return nil
        }
        guard case .uint32(let user)? = credentials["UnixUserID"] else { return nil }
        var processID: UInt32?
        if case .uint32(let pid)? = credentials["ProcessID"] { processID = pid }
        let identity = ProcessFacts.identity(userID: user, processID: processID)
        if cache.count >= Self.cacheLimit { cache.removeAll() }
        cache[sender] = identity
        return identity
    }
}

/// Facts about a process read from /proc, without following it into
/// another process's files by a reused path.
enum ProcessFacts {
    static func identity(userID: UInt32, processID: UInt32?) -> CallerIdentity {
        guard let processID else { return CallerIdentity(userID: userID, processID: nil, sandbox: .unknown) }
        // Open the process's root first: if /proc/PID is gone, "no
        // .flatpak-info" must not be mistaken for "not sandboxed".
        let root = open("/proc/\(processID)/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return CallerIdentity(userID: userID, processID: processID, sandbox: .unknown) }
        defer { close(root) }
        let sandbox: CallerSandbox
        switch readFile(at: root, ".flatpak-info") {
        case .text(let text): sandbox = CallerSandbox(flatpakInfo: text)
        case .missing: sandbox = .host
        case .unreadable: sandbox = .unknown
        }
        let cgroup: String?
        if case .text(let text) = readFile(at: AT_FDCWD, "/proc/\(processID)/cgroup") { cgroup = text } else { cgroup = nil }
        return CallerIdentity(
            userID: userID, processID: processID, sandbox: sandbox,
            scopeApp: cgroup.flatMap(SystemdScope.appID(fromCgroup:)).flatMap { try? AppID($0) })
    }

    enum FileRead { case text(String), missing, unreadable }

    /// Reads a small file (at most 64 KB) relative to a directory.
    static func readFile(at directory: Int32, _ path: String) -> FileRead {
        let fd = openat(directory, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return errno == ENOENT ? .missing : .unreadable }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65_536 {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return .text(String(decoding: bytes, as: UTF8.self))
    }
}
