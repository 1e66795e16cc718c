import DBus
import Logging
import NotifyCore
import NotifyDesktop

/// What the desktop reports (popups posted or failed, sounds, clicks,
/// popups closed, the docks' slots opened or not), handed to the core as
/// inputs like any other, on the bus loop. The daemon owns it; the
/// adapters hold its closures, which refer to it weakly (a recording
/// desktop a test keeps must not keep the state alive).
final class DesktopInputs {
    private let committer: Committer
    private let clock: any DaemonClock
    private let logger: Logger
    /// notifyd's own unique name: a click's activation is reported by it.
    private let ownName: String

    init(committer: Committer, clock: any DaemonClock, ownName: String, logger: Logger) {
        self.committer = committer
        self.clock = clock
        self.ownName = ownName
        self.logger = logger
    }

    /// A report of the popups' desktop side.
    var desktopReported: (DesktopReport) -> Void {
        { [weak self] report in self?.take(report) }
    }

    /// A report of a dock slot.
    var slotReported: (LauncherEntryPublisher.SlotReport) -> Void {
        { [weak self] report in self?.take(report) }
    }

    private func take(_ report: DesktopReport) {
        switch report {
        case .posted(let key, let id, let appName):
            committer.apply { $0.popupPosted(key, id: id, appName: appName) }
        case .failed(let key, let message):
            committer.apply { $0.popupPostFailed(key, message: message, at: clock.now()) }
        case .soundFinished(let token, let played):
            committer.apply { $0.popupSoundFinished(token, played: played) }
        case .actionInvoked(let key, let action, let activationToken):
            let known = committer.apply {
                $0.popupActionInvoked(action, on: key, activationToken: activationToken, by: ownName, at: clock.now())
            }
            if !known { logger.debug("ignoring the action '\(action)' of the notification \(key)") }
        case .closed(let key):
            committer.apply { $0.popupClosed(key) }
        }
    }

    private func take(_ report: LauncherEntryPublisher.SlotReport) {
        switch report {
        case .opened(let app):
            committer.apply { $0.dockSlotOpened(app) }
        case .failed(let app, let error):
            let first = committer.apply { $0.dockSlotFailed(app, at: clock.now()) }
            if first { logger.warning("cannot publish the launcher entry of \(app): \(error.message); retrying") }
        }
    }
}
