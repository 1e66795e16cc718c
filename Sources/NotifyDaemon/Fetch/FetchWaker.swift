import DBus
import Logging
import NotifyCore
import NotifyDesktop

/// Wakes an app for a fetch the ways SPEC lists, after `PerformFetch`:
/// a `DBusActivatable` app gets `org.freedesktop.Application.ActivateAction`
/// ("background-fetch", [fetch_id], {}) on its bus name (which starts it
/// when it is not running); any other app with a `[Desktop Action
/// background-fetch]` has that action launched through GIO with
/// `NOTIFYD_FETCH_ID` and `NOTIFYD_FETCH_DEADLINE` in its environment.
/// Nothing here blocks the bus loop: the desktop file is read on the GLib
/// thread and the call is asynchronous.
final class FetchWaker {
    /// How long `ActivateAction` may take: the fetch's own time.
    static let callTimeoutMilliseconds = Int32(FetchBook.handlerTimeout / 1_000)

    private weak var connection: DBusConnection?
    private let desktop: LazyDesktop?
    private let loop: EventLoop
    private let logger: Logger

    /// `desktop` is the GLib side (nil in an embedded daemon: then
    /// `PerformFetch` alone wakes apps).
    init(connection: DBusConnection, desktop: LazyDesktop?, loop: EventLoop, logger: Logger) {
        self.connection = connection
        self.desktop = desktop
        self.loop = loop
        self.logger = logger
    }

    /// Starts waking the app for `fetch`; without a desktop side (an
    /// embedded daemon), `PerformFetch` alone does.
    func wake(_ fetch: RunningFetch) {
        guard let desktop else { return }
        guard let notifier = desktop.running else {
            routed(.signalOnly("the desktop side is not running"), fetch)
            return
        }
        let environment = [("NOTIFYD_FETCH_ID", "\(fetch.id)"), ("NOTIFYD_FETCH_DEADLINE", "\(fetch.deadline)")]
        // The route is found on the GLib thread: hop back to the bus loop.
        let bound = LoopBound(WeakReference(self), loop: loop)
        notifier.wakeForFetch(fetch.app.rawValue, environment: environment) { route in
            bound.execute { $0.value?.routed(route, fetch) }
        }
    }

    private func routed(_ route: FetchWakeRoute, _ fetch: RunningFetch) {
        switch route {
        case .activateAction:
            activateAction(fetch)
        case .launchedAction:
            logger.info("fetch \(fetch.id): launched the background-fetch action of \(fetch.app)")
        case .signalOnly(let why):
            logger.debug("fetch \(fetch.id) of \(fetch.app) is announced by PerformFetch alone: \(why)")
        case .failed(let why):
            logger.warning("fetch \(fetch.id): \(why); PerformFetch was sent all the same")
        }
    }

    /// `ActivateAction` on the app's name and path, as the Desktop Entry
    /// specification derives them from its ID.
    private func activateAction(_ fetch: RunningFetch) {
        let app = fetch.app.rawValue
        do {
            guard let connection else { return }
            let message = try DBusMessage.methodCall(
                destination: app, path: Self.objectPath(of: app), interface: "org.freedesktop.Application",
                member: "ActivateAction",
                arguments: [
                    .string("background-fetch"), .array(element: .variant, [.variant(.uint64(fetch.id))]),
                    .vardict([:]),
                ])
            let logger = self.logger
            try connection.callAsync(message, timeoutMilliseconds: Self.callTimeoutMilliseconds) { result in
                switch result {
                case .success:
                    logger.info("fetch \(fetch.id): \(app) took ActivateAction(background-fetch)")
                case .failure(let error):
                    logger.warning("fetch \(fetch.id): ActivateAction(background-fetch) on \(app) failed: \(error)")
                }
            }
        } catch {
            logger.warning("fetch \(fetch.id): cannot call ActivateAction on \(app): \(error)")
        }
    }

    /// `/org/example/App` for `org.example.App`; `-` becomes `_`.
    static func objectPath(of app: String) -> String {
        "/" + String(app.map { $0 == "." ? "/" : $0 == "-" ? "_" : $0 })
    }
}
