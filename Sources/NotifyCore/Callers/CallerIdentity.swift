/// Whether a caller runs in a sandbox, and of which app.
public enum CallerSandbox: Sendable, Hashable {
    /// On the host: its root has no `.flatpak-info`.
    case host
    /// In a Flatpak sandbox, of the app its `.flatpak-info` names; `nil`
    /// when the file names no valid app ID.
    case flatpak(AppID?)
    /// The daemon could not look (the bus gave no process ID, or the
    /// connection or its process was gone before it could be identified).
    case unknown

    /// The sandbox told by `/proc/PID/root/.flatpak-info`: its text, or
    /// `nil` when the process's root was opened and holds no such file.
    /// (A missing `/proc/PID` is ``unknown``, not `nil`: tell the two apart
    /// by opening the root first.)
    public init(flatpakInfo text: String?) {
        guard let text else {
            self = .host
            return
        }
        self = .flatpak(FlatpakInfo.applicationName(fromKeyFile: text).flatMap { try? AppID($0) })
    }
}

/// Who called, as far as notifyd can tell: the user and process ID the bus
/// vouches for (`GetConnectionCredentials`), and what the daemon read about
/// that process in `/proc`.
public struct CallerIdentity: Sendable, Hashable {
    /// The caller's Unix user ID.
    public var userID: UInt32
    /// The caller's process ID, when the bus gave one.
    public var processID: UInt32?
    /// Whether the caller is sandboxed, and as which app.
    public var sandbox: CallerSandbox
    /// The app of the systemd unit a desktop launched the caller in
    /// (``SystemdScope``), for host apps.
    public var scopeApp: AppID?
    /// Why the caller could not be identified, when it was gone first
    /// (its sandbox is then ``CallerSandbox/unknown``).
    public var departure: String?

    public init(
        userID: UInt32, processID: UInt32?, sandbox: CallerSandbox, scopeApp: AppID? = nil, departure: String? = nil
    ) {
        self.userID = userID
        self.processID = processID
        self.sandbox = sandbox
        self.scopeApp = scopeApp
        self.departure = departure
    }

    /// A caller from the text of the files the daemon read: `flatpakInfo`
    /// as for ``CallerSandbox/init(flatpakInfo:)``, `cgroup` the text of
    /// `/proc/PID/cgroup` (`nil` when unreadable).
    public init(userID: UInt32, processID: UInt32?, flatpakInfo: String?, cgroup: String?) {
        self.init(
            userID: userID, processID: processID, sandbox: CallerSandbox(flatpakInfo: flatpakInfo),
            scopeApp: cgroup.flatMap(SystemdScope.appID(fromCgroup:)).flatMap { try? AppID($0) })
    }

    /// The app of the caller's Flatpak sandbox; `nil` on the host.
    public var sandboxedApp: AppID? {
        if case .flatpak(let app) = sandbox { app } else { nil }
    }
}

/// Who may act for which app.
///
/// A sandboxed caller may act only for its own app: the sandbox is a
/// boundary notifyd must not let it cross. A host caller of the daemon's
/// user may act for any app, scope or not: such a process can already do
/// anything the user can (write notifyd's database, ptrace the app), so a
/// check would protect nothing, and the launch scope is easily had (`systemd-run
/// --user --scope --unit=app-…`). The scope only *identifies* a host app.
public enum CallerPolicy {
    /// Throws `NotPermitted` when `caller` may not act for `app`: it runs as
    /// another Unix user than `daemonUserID`; it is sandboxed as another app
    /// than `app`, or as an app that cannot be told; or whether it is
    /// sandboxed is unknown.
    public static func check(
        _ caller: CallerIdentity, actingFor app: AppID, daemonUserID: UInt32
    ) throws(NotifydError) {
        guard caller.userID == daemonUserID else {
            throw NotifydError(
                .notPermitted,
                "the caller runs as Unix user \(caller.userID); this notifyd serves user \(daemonUserID) only")
        }
        switch caller.sandbox {
        case .host:
            return
        case .flatpak(let own?):
            guard own == app else {
                throw NotifydError(
                    .notPermitted,
                    "the caller is the sandboxed app \(own) (Flatpak); it may act for \(own) only, not for \(app)")
            }
        case .flatpak(nil):
            throw NotifydError(
                .notPermitted,
                "the caller is in a Flatpak sandbox whose .flatpak-info names no valid app ID; "
                    + "it may not act for \(app) or any other app")
        case .unknown:
            let why =
                caller.departure.map { "the sender could not be identified: \($0)" }
                ?? caller.processID.map { "notifyd could not read /proc/\($0)/root/.flatpak-info" }
                ?? "the bus gave no process ID for the caller"
            throw NotifydError(
                .notPermitted, "\(why), so notifyd cannot tell whether it is sandboxed; it may not act for \(app)")
        }
    }

    /// Throws `NotPermitted` unless `caller` may act for every app at once
    /// (ClearAllBadges): a host process of the daemon's user; a sandboxed
    /// app may not, nor a caller that left unidentified.
    public static func checkForAllApps(_ caller: CallerIdentity, daemonUserID: UInt32) throws(NotifydError) {
        guard case .host = caller.sandbox, caller.userID == daemonUserID else {
            throw NotifydError(.notPermitted, "only host processes of the user may act for every app at once")
        }
    }

    /// Which apps `caller`'s listings show: every app on the host, only its
    /// own in a sandbox, none when that cannot be told or for another user.
    public static func visibility(of caller: CallerIdentity, daemonUserID: UInt32) -> AppVisibility {
        guard caller.userID == daemonUserID else { return .noApp }
        switch caller.sandbox {
        case .host: return .everyApp
        case .flatpak(let app?): return .onlyApp(app)
        case .flatpak(nil), .unknown: return .noApp
        }
    }

    /// The app the caller is, when it can be told: its sandbox's app, or
    /// else (on the host) the app of its launch scope. `nil` for a caller
    /// whose sandbox is unknown or names no app: a scope does not stand in
    /// for a sandbox.
    public static func identifiedApp(_ caller: CallerIdentity) -> AppID? {
        switch caller.sandbox {
        case .host: caller.scopeApp
        case .flatpak(let app): app
        case .unknown: nil
        }
    }
}

/// Which apps a caller's listings show (``CallerPolicy/visibility(of:daemonUserID:)``).
public enum AppVisibility: Sendable, Hashable {
    case everyApp
    case onlyApp(AppID)
    case noApp

    /// Whether a listing for this caller shows `app`.
    public func shows(_ app: AppID) -> Bool {
        switch self {
        case .everyApp: true
        case .onlyApp(let own): own == app
        case .noApp: false
        }
    }
}
