import CLibnotify
import Logging

/// What ``GLibDesktop`` keeps on its GLib thread: libnotify's state,
/// the popups showing by key, the app-info cache, the app launcher (clicks
/// and fetch wakes) and the session bus connection libnotify's proxy runs
/// on.
///
/// GLib thread only (it lives in a ``ThreadConfined``). A popup is known
/// from its first successful post until the server closes it, closing it
/// fails, teardown, or ``popupsKept`` newer popups push it out; forgetting
/// drops the `NotifyNotification` and its callbacks (the popup stays on
/// screen, but a click on it reaches nobody).
final class GLibDesktopState {
    /// Popups known at most. A server that never says "closed" (GNOME's
    /// tray keeps them until the user clears it; some never send it) would
    /// otherwise make them grow with every download: each holds libnotify's
    /// object, its hints and callbacks, about 1 KB. As many as the daemon
    /// keeps click targets for (``NotificationActions``).
    static let popupsKept = 1_000

    private let logger: Logger
    private let events: @Sendable (DesktopEvent) -> Void
    private let limit: Int
    private var entries: [NotificationKey: LibnotifyNotification] = [:]
    /// When each known popup was first posted (a counter), to push out the oldest.
    private var postedAt: [NotificationKey: UInt64] = [:]
    private var posts: UInt64 = 0
    private let apps = AppInfoCache()
    private let launcher = AppLauncher()
    /// GIO's session bus singleton (one reference), held so it outlives
    /// libnotify's proxy and with `exit-on-close` off: GIO would otherwise
    /// raise SIGTERM in the process when the bus goes away.
    private var bus: OpaquePointer?
    private var isOpen = false

    init(logger: Logger, limit: Int = GLibDesktopState.popupsKept, events: @escaping @Sendable (DesktopEvent) -> Void) {
        self.logger = logger
        self.limit = max(1, limit)
        self.events = events
    }

    /// Popups showing now.
    var count: Int { entries.count }

    /// Whether GIO would raise SIGTERM when the held bus connection closes
    /// (nil without one).
    var exitsWhenTheBusCloses: Bool? { bus.map { g_dbus_connection_get_exit_on_close($0) != gFalse } }

    /// `notify_init`, on this thread, before any other libnotify call.
    func open() -> Bool {
        isOpen = notify_init("notifyd") != gFalse
        return isOpen
    }

    /// Forgets every popup (they stay on screen), `notify_uninit`, and
    /// releases the bus. Afterwards every request fails.
    func tearDown() {
        guard isOpen else { return }
        isOpen = false
        launcher.abandonAll()
        closeLibnotify()
    }

    func appInfo(for appID: String) -> DesktopAppInfo { apps.info(for: appID) }

    /// Posts a new popup or updates the one showing under the same key.
    func post(_ request: NotificationRequest) {
        let key = request.key
        do throws(DesktopError) {
            guard isOpen else { throw DesktopError(.shutDown, "the desktop notifier is shut down") }
            guard !request.summary.isEmpty else { throw DesktopError(.invalidRequest, "a notification needs a summary") }
            try connectBus()
            let app = apps.info(for: request.appID)
            let notification: LibnotifyNotification
            if let showing = entries[key] {
                showing.update(summary: request.summary, body: request.body, icon: app.icon)
                notification = showing
            } else {
                notification = LibnotifyNotification(summary: request.summary, body: request.body, icon: app.icon)
                notification.onClosed { [weak self, weak notification] reason in
                    guard let self, let notification else { return }
                    self.closed(key, notification, reason: reason)
                }
            }
            configure(notification, for: request, app: app)
            try notification.show()
            remember(notification, as: key)
            events(.posted(key, id: notification.id, appName: app.name))
        } catch {
            // A popup already showing stays known: if it is still on screen,
            // the next post replaces it instead of adding a second one.
            logger.debug("cannot post \(key): \(error.message)")
            events(.failed(key, message: error.message))
        }
    }

    /// Asks the server to close the popup; `.closed` follows from the server.
    func close(_ key: NotificationKey) {
        guard isOpen, let notification = entries[key] else { return }
        do throws(DesktopError) {
            try notification.close()
        } catch {
            // The server is gone or never knew it: nothing left to close.
            forget(key)
            logger.debug("cannot close \(key): \(error.message)")
        }
    }

    private func closed(_ key: NotificationKey, _ notification: LibnotifyNotification, reason: Int32) {
        guard entries[key] === notification else { return }
        // libnotify holds a reference while it emits `closed`: dropping ours here is safe.
        forget(key)
        events(.closed(key, reason: reason))
    }

    /// Keeps the popup under `key`; a new key beyond ``limit`` pushes out
    /// the popup posted first (a scan of the known ones, only when full).
    private func remember(_ notification: LibnotifyNotification, as key: NotificationKey) {
        if entries.updateValue(notification, forKey: key) == nil {
            posts += 1
            postedAt[key] = posts
            if entries.count > limit, let oldest = postedAt.min(by: { $0.value < $1.value })?.key {
                logger.debug("forgetting the popup \(oldest): \(limit) newer ones are showing")
                forget(oldest)
            }
        }
    }

    private func forget(_ key: NotificationKey) {
        entries[key] = nil
        postedAt[key] = nil
    }

    /// Hints, app name, category and actions, set afresh on every post.
    private func configure(_ notification: LibnotifyNotification, for request: NotificationRequest, app: DesktopAppInfo) {
        let key = request.key
        notification.setAppName(app.name)
        notification.setHint("desktop-entry", string: request.appID)
        if let category = request.category, !category.isEmpty { notification.setCategory(category) }
        switch request.soundHint {
        case .name(let name) where !name.isEmpty: notification.setHint("sound-name", string: name)
        case .file(let path) where !path.isEmpty: notification.setHint("sound-file", string: path)
        case .suppress, .name, .file: notification.setHint("suppress-sound", bool: true)
        case nil: break
        }
        if let progress = request.progress { notification.setHint("value", int32: min(max(progress, 0), 100)) }
        if request.transient { notification.setHint("transient", bool: true) }
        guard request.withActions else { return }
        // Weak: the notification owns its actions, and so these closures.
        let invoked: (String) -> Void = { [events, weak notification] action in
            events(.actionInvoked(key, action: action, activationToken: notification?.activationToken))
        }
        if app.hasDesktopFile { notification.addAction("default", label: Self.defaultLabel(app), handler: invoked) }
        if request.openPath != nil { notification.addAction("open", label: "Open", handler: invoked) }
    }

    /// The default action's label. Most servers never show it (a click on
    /// the popup runs it), but xfce4-notifyd and lxqt-notificationd draw it
    /// as a button unless it is empty, which libnotify does not allow; and
    /// on xfce4-notifyd that button is the only way to run it. So it says
    /// what it does, beside `Open`.
    static func defaultLabel(_ app: DesktopAppInfo) -> String { "Show in \(app.name)" }

    // MARK: Launching

    /// Launches the app from its desktop file; see ``AppLauncher``.
    func launchApp(_ appID: String, activationToken: String?, completion: @escaping @Sendable (LaunchOutcome) -> Void) {
        launcher.launch(
            appID, activationToken: activationToken, hasSessionBus: holdSessionBus(), completion: completion)
    }

    /// Wakes the app for a background fetch; see ``AppLauncher/wakeForFetch(_:environment:hasSessionBus:completion:)``.
    func wakeForFetch(
        _ appID: String, environment: [(String, String)], completion: @escaping @Sendable (FetchWakeRoute) -> Void
    ) {
        launcher.wakeForFetch(
            appID, environment: environment, hasSessionBus: holdSessionBus(), completion: completion)
    }

    /// Opens the file with the user's default app; see ``AppLauncher``.
    func openPath(_ path: String, activationToken: String?, completion: @escaping @Sendable (LaunchOutcome) -> Void) {
        launcher.open(path, activationToken: activationToken, hasSessionBus: holdSessionBus(), completion: completion)
    }

    /// GIO launches over the process's shared session bus: hold it first,
    /// so that it is ours (without `exit-on-close`) and not a dead one.
    /// Without a bus, GIO spawns every app from its `Exec` line.
    private func holdSessionBus() -> Bool {
        guard isOpen else { return false }
        do throws(DesktopError) {
            try connectBus()
            return true
        } catch {
            logger.debug("launching without a session bus: \(error.message)")
            return false
        }
    }

    /// Holds the session bus; after it was lost, starts libnotify afresh
    /// so that its proxy is made again on a new connection.
    private func connectBus() throws(DesktopError) {
        if let bus {
            guard g_dbus_connection_is_closed(bus) != gFalse else { return }
            logger.warning("the session bus connection was lost; connecting again")
            closeLibnotify()
            guard open() else { throw DesktopError(.glib, "libnotify cannot start again") }
        }
        let connection = try withGError("cannot connect to the session bus", failed: { $0 == nil }) {
            g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0)
        }
        g_dbus_connection_set_exit_on_close(connection, gFalse)
        bus = connection
    }

    private func closeLibnotify() {
        // Dropped first, so notify_uninit does not close popups that have
        // an `open` action (it would, for those still in its list).
        entries.removeAll()
        postedAt.removeAll()
        notify_uninit()
        if let bus {
            g_object_unref(UnsafeMutableRawPointer(bus))
            self.bus = nil
        }
    }
}

extension LibnotifyNotification {
    /// The `activation-token` the server sent with the action being
    /// invoked (libnotify 0.8); nil outside an action callback or when the
    /// server sent none.
    fileprivate var activationToken: String? {
        guard let token = notify_notification_get_activation_token(raw), token.pointee != 0 else { return nil }
        return String(cString: token)
    }
}
