import DBus
import Logging
import NotifyCore

/// `org.notifyd.Notifyd1.Apps`: app lifecycle states and activations.
///
/// A state belongs to the connection that reported it: when that
/// connection leaves the bus, its apps become `not-running`. Becoming
/// active resets the app's badge and is recorded, with its time, in the
/// activation history (persisted, bounded per app).
final class AppService {
    private let committer: Committer
    private let callers: CallerCheck
    private let clock: any DaemonClock
    /// notifyd's own unique name: the owner of states it reports itself.
    private let ownName: String

    init(
        committer: Committer, callers: CallerCheck, clock: any DaemonClock, ownName: String
    ) {
        self.committer = committer
        self.callers = callers
        self.clock = clock
        self.ownName = ownName
    }

    /// A click on a notification's default action activated the app: it
    /// counts as DidBecomeActive, reported by notifyd itself, so the app is
    /// `active` until it reports a state of its own.
    /// `LimitExceeded` for one app too many (``AppBook/maximumApps``).
    func activatedByNotifyd(_ app: AppID) throws(NotifydError) {
        try record(.active, for: app, by: ownName)
    }

    func didBecomeActive(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try report(.active, call)
    }

    func willResignActive(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try report(.inactive, call)
    }

    func didEnterBackground(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try report(.background, call)
    }

    private func report(_ appState: AppState, _ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        try callers.authorize(call, for: app)
        try record(appState, for: app, by: call.sender)
        return committer.respond(call, [])
    }

    /// Records a state reported by `owner` (a connection's unique name);
    /// also used when a notification's default action activates the app.
    func record(_ appState: AppState, for app: AppID, by owner: String) throws(NotifydError) {
        let now = clock.now()
        _ = try committer.apply { (state) throws(NotifydError) in try state.reportAppState(appState, for: app, by: owner, at: now) }
    }

    /// A connection left the bus: the apps whose state it owned stop running.
    func ownerLeft(_ owner: String) {
        guard committer.current.apps.owners.contains(owner) else { return }
        committer.apply { $0.ownerLeft(owner) }
    }

    func getState(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        try callers.authorize(call, for: app)
        return committer.read(call) { [committer] in .reply([.string(committer.committed.apps.state(of: app).rawValue)]) }
    }

    func listApps(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let visibility = try callers.visibility(for: call)
        return committer.read(call) { [committer] in
            let committed = committer.committed
            let apps = committed.knownApps.filter { visibility.shows($0) }
            let rows: [DBusValue] = apps.sorted().map { app in
                .structure([
                    .string(app.rawValue), .string(committed.apps.state(of: app).rawValue), .uint32(committed.badges[app]),
                ])
            }
            return .reply([.array(element: .structure([.string, .string, .uint32]), rows)])
        }
    }
}
