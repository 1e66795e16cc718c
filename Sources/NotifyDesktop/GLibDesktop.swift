public import Logging
import Synchronization

/// The desktop side of notifyd on a GLib thread of its own: posts desktop
/// notifications with libnotify, launches apps and opens files through
/// GIO (a click, a fetch's wake-up), and reads apps' desktop files, all
/// without ever blocking the caller.
///
/// libnotify (GDBus underneath) makes blocking D-Bus calls and needs a GLib
/// main loop for its action and close callbacks, so every libnotify and GIO
/// call happens on one ``GLibThread`` of the notifier's own: `notify_init`
/// runs there first, requests are queued to it, and results come back
/// through `events`, called on that thread (or on the caller's, for a
/// request made after ``shutDown()``). Hop to your own loop from there;
/// never block in it, and do not keep the last reference to the notifier
/// in it.
///
/// libnotify uses the session bus of `DBUS_SESSION_BUS_ADDRESS` as it is
/// when the first request is posted, and keeps its state per process: one
/// notifier may run at a time (a second one throws `Busy`).
public final class GLibDesktop: Sendable {
    private let thread: GLibThread
    private let table: ThreadConfined<GLibDesktopState>
    private let events: @Sendable (DesktopEvent) -> Void
    private let stopped = Mutex(false)

    /// Whether a notifier owns libnotify in this process.
    private static let running = Mutex(false)

    /// Starts the GLib thread and libnotify on it.
    public convenience init(logger: Logger, events: @escaping @Sendable (DesktopEvent) -> Void) throws(DesktopError) {
        try self.init(logger: logger, popupsKept: GLibDesktopState.popupsKept, events: events)
    }

    /// - Parameter popupsKept: popups known at most (tests lower it).
    init(logger: Logger, popupsKept: Int, events: @escaping @Sendable (DesktopEvent) -> Void) throws(DesktopError) {
        try Self.claimLibnotify()
        let thread: GLibThread
        do throws(DesktopError) {
            thread = try GLibThread(name: "notifyd-glib")
        } catch {
            Self.running.withLock { $0 = false }
            throw error
        }
        let table = ThreadConfined(GLibDesktopState(logger: logger, limit: popupsKept, events: events), on: thread)
        guard thread.sync({ table.access { $0.open() } }) == true else {
            thread.stop()
            Self.running.withLock { $0 = false }
            throw DesktopError(.glib, "notify_init failed")
        }
        self.thread = thread
        self.table = table
        self.events = events
    }

    deinit {
        shutDown()
    }

    /// Posts `request`, or updates the popup showing under its key; returns
    /// at once. The outcome arrives as `.posted` or `.failed`.
    public func post(_ request: NotificationRequest) {
        let table = self.table
        guard thread.perform({ table.access { $0.post(request) } }) else {
            events(.failed(request.key, message: "the desktop notifier is shut down"))
            return
        }
    }

    /// Asks the server to close the popup under `key`, if one is showing;
    /// `.closed` follows when the server confirms.
    public func close(_ key: NotificationKey) {
        let table = self.table
        thread.perform { table.access { $0.close(key) } }
    }

    /// The app's name and icon as notifications use them (cached per app).
    public func lookUpApp(_ appID: String, completion: @escaping @Sendable (DesktopAppInfo) -> Void) {
        let table = self.table
        let done = thread.perform { table.access { completion($0.appInfo(for: appID)) } }
        if !done { completion(DesktopAppInfo(name: appID, icon: nil, hasDesktopFile: false)) }
    }

    /// Launches the app as a click on its launcher would, from
    /// `APP_ID.desktop`: `org.freedesktop.Application.Activate` for a
    /// `DBusActivatable` app, else its `Exec` line (as argv, never through a
    /// shell), with no signal blocked. Returns at once; `completion` runs on
    /// the GLib thread (or the caller's, after ``shutDown()``).
    /// `activationToken` is the one from `.actionInvoked`, if any.
    public func launchApp(
        _ appID: String, activationToken: String?, completion: @escaping @Sendable (LaunchOutcome) -> Void
    ) {
        let table = self.table
        let queued = thread.perform {
            table.access { $0.launchApp(appID, activationToken: activationToken, completion: completion) }
        }
        if !queued { completion(.failed("the desktop notifier is shut down")) }
    }

    /// Wakes `appID` for a background fetch: tells the caller to send
    /// `ActivateAction` for a `DBusActivatable` app, else launches its
    /// desktop file's `background-fetch` action with `environment` added.
    /// Returns at once; `completion` runs on the GLib thread.
    public func wakeForFetch(
        _ appID: String, environment: [(String, String)], completion: @escaping @Sendable (FetchWakeRoute) -> Void
    ) {
        let table = self.table
        let queued = thread.perform {
            table.access { $0.wakeForFetch(appID, environment: environment, completion: completion) }
        }
        if !queued { completion(.failed("the desktop notifier is shut down")) }
    }

    /// Opens the file at the absolute `path` with the user's default app for
    /// its type (`mimeapps.list`), as `Open` over D-Bus or as a file
    /// argument of its `Exec` line. Returns at once; like ``launchApp(_:activationToken:completion:)``.
    public func openPath(
        _ path: String, activationToken: String?, completion: @escaping @Sendable (LaunchOutcome) -> Void
    ) {
        let table = self.table
        let queued = thread.perform {
            table.access { $0.openPath(path, activationToken: activationToken, completion: completion) }
        }
        if !queued { completion(.failed("the desktop notifier is shut down")) }
    }

    /// Forgets every popup (they stay on screen), `notify_uninit`, and
    /// joins the GLib thread. Idempotent; later requests fail.
    public func shutDown() {
        let table = self.table
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            thread.stop { table.access { $0.tearDown() } }
            Self.running.withLock { $0 = false }
        }
    }

    /// Runs `body` on the GLib thread with the table and waits (tests).
    func withTable<T: Sendable>(_ body: @escaping @Sendable (GLibDesktopState) -> T) -> T? {
        let table = self.table
        return thread.sync { table.access(body) }
    }

    private static func claimLibnotify() throws(DesktopError) {
        let claimed = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard claimed else {
            throw DesktopError(.busy, "another GLibDesktop is running: libnotify allows one per process")
        }
    }
}
