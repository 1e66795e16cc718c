import Logging
import NotifyCore
import NotifyDesktop

/// What a notification's actions act on.
struct ActionTarget {
    let app: AppID
    let path: String?
}

/// What the actions of posted notifications act on, and what a click does:
/// the default action activates the app (and counts as DidBecomeActive),
/// `open` opens the event's file with the user's default handler; both go
/// through GIO, never through a shell.
///
/// Targets are kept until the server says a notification is closed, so
/// clicks keep working across a server restart; at most ``targetsKept``
/// (a server that never says "closed" cannot make them grow).
final class NotificationActions {
    static let targetsKept = 1_000

    private let apps: AppService
    private let logger: Logger
    private var targets: [NotificationKey: ActionTarget] = [:]

    init(apps: AppService, logger: Logger) {
        self.apps = apps
        self.logger = logger
    }

    /// Remembers what the actions of the notification `key` act on.
    func remember(_ target: ActionTarget, for key: NotificationKey) {
        if targets.count >= Self.targetsKept, targets[key] == nil {
            targets.remove(at: targets.startIndex)
        }
        targets[key] = target
    }

    /// The notification `key` was closed: its actions act on nothing now.
    func forget(_ key: NotificationKey) {
        targets[key] = nil
    }

    /// Carries out a click on `action` of the notification `key`; false
    /// when notifyd knows nothing of that notification.
    func clicked(
        _ action: String, on key: NotificationKey, activationToken: String?, notifier: GLibDesktop?
    ) -> Bool {
        guard let target = targets[key] else { return false }
        let logger = self.logger
        switch action {
        case "default":
            do {
                try apps.activatedByNotifyd(target.app)
            } catch {
                // The app is launched all the same; only its state and activation are not kept.
                logger.warning("\(error.message)")
            }
            notifier?.launchApp(target.app.rawValue, activationToken: activationToken) { outcome in
                if case .failed(let message) = outcome { logger.warning("\(message)") }
            }
        case "open":
            guard let path = target.path else { return true }
            notifier?.openPath(path, activationToken: activationToken) { outcome in
                if case .failed(let message) = outcome { logger.warning("\(message)") }
            }
        default:
            logger.debug("ignoring the unknown action '\(action)' of a notification of \(target.app)")
        }
        return true
    }
}
